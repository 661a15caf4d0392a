import t from 'tap';
import { parseEventMessage } from '../../../infra/event-bus/kafka-message.js';
import type { StoredEvent } from '../../../infra/event-store/port.js';

const event: StoredEvent = {
  streamId: 'item-5',
  streamVersion: 2,
  position: 17,
  type: 'ItemUpdated',
  data: { id: 5, changed: ['o:title'] },
  metadata: { userId: 1, at: '2024-05-01T10:00:00.000Z', requestId: 'req-1' },
};
const message = (value: unknown) => Buffer.from(JSON.stringify(value));

t.test('a message as the forwarder writes it is the event it was made of', async (t) => {
  t.same(parseEventMessage(message(event)), { ok: true, value: event });
  const anonymous = { ...event, data: null, metadata: { userId: null, at: event.metadata.at } };
  t.same(parseEventMessage(message(anonymous)), { ok: true, value: anonymous }, 'no user, no request id, null data');
});

t.test('a message that is not an event says what is wrong, and where', async (t) => {
  const problems: [string, Buffer | null, string][] = [
    ['no value', null, 'The message is empty'],
    ['empty', Buffer.alloc(0), 'The message is empty'],
    ['not an object', message([event]), 'Expected object'],
    ['metadata of another shape', message({ ...event, metadata: 'alice' }), '/metadata: Expected object'],
    ['a time that is not text', message({ ...event, metadata: { userId: 1, at: 5 } }), '/metadata/at: Expected string'],
    ['a position that is not a whole number', message({ ...event, position: '17' }), '/position: Expected integer'],
    ['a version with a fraction', message({ ...event, streamVersion: 1.5 }), '/streamVersion: Expected integer'],
  ];
  for (const [label, value, problem] of problems) t.same(parseEventMessage(value), { ok: false, problem }, label);
  // The parser's own words (V8's, which vary with its version) follow.
  t.match(parseEventMessage(Buffer.from('{"streamId":')), { ok: false, problem: /^Not JSON \(.+\)$/ }, 'not JSON');
  const { data: _data, ...withoutData } = event;
  t.same(
    parseEventMessage(message(withoutData)),
    { ok: false, problem: '/data: Expected required property' },
    'the data must be there, even null',
  );
});
