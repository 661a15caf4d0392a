import t from 'tap';
import type { StoredEvent } from '../../../infra/event-store/port.js';
import { eventUpcasting, type Upcaster } from '../../../infra/event-store/upcast.js';

/** Adds `colour: 'none'` where it is missing: the shape of a field added later. */
const withColour: Upcaster = (data) =>
  typeof data === 'object' && data !== null && !('colour' in data) ? { ...data, colour: 'none' } : data;

const stored = (type: string, data: unknown): StoredEvent => ({
  streamId: 'thing-1',
  streamVersion: 1,
  position: 7,
  type,
  data,
  metadata: { userId: 2, at: '2026-12-01T00:00:00.000Z', requestId: 'req-9' },
});

t.test('an event type with an upcaster gets its data in the current shape, the rest as stored', async (t) => {
  const upcasting = eventUpcasting({ things: { ThingCreated: withColour } });
  t.same([...upcasting.types], ['ThingCreated']);
  t.strictSame(upcasting.data('ThingCreated', { id: 1 }), { id: 1, colour: 'none' });
  const current = { id: 1, colour: 'red' };
  t.equal(upcasting.data('ThingCreated', current), current, 'data already current is the same value');
  const other = { id: 1 };
  t.equal(upcasting.data('ThingDeleted', other), other, 'a type without an upcaster passes as it is');
});

t.test('a stored event is copied only when its data changes, and never changed itself', async (t) => {
  const upcasting = eventUpcasting({ things: { ThingCreated: withColour } });
  const old = stored('ThingCreated', { id: 1 });
  const up = upcasting.event(old);
  t.not(up, old);
  t.strictSame(up, { ...old, data: { id: 1, colour: 'none' } }, 'every other key kept');
  t.strictSame(old.data, { id: 1 }, 'the stored event is left as it was');
  const current = stored('ThingCreated', { id: 1, colour: 'red' });
  t.equal(upcasting.event(current), current);
  const untouched = stored('ThingDeleted', { id: 1 });
  t.equal(upcasting.event(untouched), untouched);
});

t.test('an event type has one upcaster: two modules naming it refuse to start', async (t) => {
  t.throws(() => eventUpcasting({ things: { ThingCreated: withColour }, others: { ThingCreated: withColour } }), {
    message: 'Event type ThingCreated has upcasters in things and others.',
  });
});
