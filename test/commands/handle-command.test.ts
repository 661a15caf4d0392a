import t from 'tap';
import { sqliteCommandContext } from './sqlite-context.js';
import type { Decider } from '../../commands/decider.js';
import { handleCommand } from '../../commands/handle-command.js';
import { ConflictError, PreconditionFailedError } from '../../infra/errors.js';
import { SqliteEventStore } from '../../infra/event-store/sqlite.js';

type Created = { type: 'ThingCreated'; data: { id: number } };
type Create = { type: 'CreateThing'; data: { id: number } };
const thingDecider: Decider<{ exists: boolean }, Create, Created> = {
  initialState: () => ({ exists: false }),
  evolve: () => ({ exists: true }),
  decide(command, state) {
    if (state.exists) throw new ConflictError(`Thing ${command.data.id} already exists.`);
    return [{ type: 'ThingCreated', data: { id: command.data.id } }];
  },
};

t.test('newStream: a create decides on the initial state without reading the stream', async (t) => {
  const ctx = sqliteCommandContext(t);
  const store = ctx.eventStore as SqliteEventStore;
  let reads = 0;
  const readStream = store.readStream.bind(store);
  store.readStream = async (stream: string) => {
    reads += 1;
    return readStream(stream);
  };
  const result = await handleCommand(ctx, {
    stream: 'thing-1',
    decider: thingDecider,
    command: { type: 'CreateThing', data: { id: 1 } },
    newStream: true,
  });
  t.same(result.events, [{ type: 'ThingCreated', data: { id: 1 } }]);
  t.equal(reads, 0, 'the stream was not read');
  t.equal((await readStream('thing-1')).length, 1);
});

t.test(
  'newStream on a stream that exists after all: the conflict is retried with a read, and the decider refuses',
  async (t) => {
    const ctx = sqliteCommandContext(t);
    await handleCommand(ctx, {
      stream: 'thing-1',
      decider: thingDecider,
      command: { type: 'CreateThing', data: { id: 1 } },
    });
    await t.rejects(
      handleCommand(ctx, {
        stream: 'thing-1',
        decider: thingDecider,
        command: { type: 'CreateThing', data: { id: 1 } },
        newStream: true,
      }),
      new ConflictError('Thing 1 already exists.'),
    );
    t.equal((await ctx.eventStore.readStream('thing-1')).length, 1, 'nothing appended');
  },
);

type Noted = { type: 'ThingNoted' | 'ThingTouched'; data: { text: string } };
type Note = { type: 'NoteThing' | 'TouchThing'; data: { text: string } };
const noteDecider: Decider<null, Note, Noted> = {
  initialState: () => null,
  evolve: () => null,
  decide: (command) => [{ type: command.type === 'NoteThing' ? 'ThingNoted' : 'ThingTouched', data: command.data }],
};
const COUNTS: ReadonlySet<string> = new Set(['ThingNoted']);

t.test('ifMatch: checked against the stream as read; only the counted events make the version', async (t) => {
  const ctx = sqliteCommandContext(t);
  const note = (text: string, accepted?: number[]) =>
    handleCommand(ctx, {
      stream: 'thing-1',
      decider: noteDecider,
      command: { type: 'NoteThing', data: { text } },
      ...(accepted ? { ifMatch: { accepted, counts: COUNTS } } : {}),
    });
  await note('one');
  await t.rejects(note('stale', [2]), new PreconditionFailedError(1));
  await handleCommand(ctx, {
    stream: 'thing-1',
    decider: noteDecider,
    command: { type: 'TouchThing', data: { text: 'not counted' } },
  });
  const result = await note('two', [1]);
  t.equal(result.streamVersion, 3, 'an uncounted event after version 1 leaves the version at 1');
  t.equal((await ctx.eventStore.readStream('thing-1')).length, 3, 'the stale write appended nothing');
});

t.test('ifMatch: of two concurrent writes with the same version, exactly one is appended', async (t) => {
  const ctx = sqliteCommandContext(t);
  await handleCommand(ctx, {
    stream: 'thing-1',
    decider: noteDecider,
    command: { type: 'NoteThing', data: { text: 'one' } },
  });
  const outcomes = await Promise.allSettled(
    ['a', 'b', 'c'].map((text) =>
      handleCommand(ctx, {
        stream: 'thing-1',
        decider: noteDecider,
        command: { type: 'NoteThing', data: { text } },
        ifMatch: { accepted: [1], counts: COUNTS },
      }),
    ),
  );
  t.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
  for (const o of outcomes) if (o.status === 'rejected') t.type(o.reason, PreconditionFailedError);
  t.equal((await ctx.eventStore.readStream('thing-1')).length, 2);
});
