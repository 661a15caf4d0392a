import t from 'tap';
import { sqliteCommandContext } from './sqlite-context.js';
import type { Decider } from '../../commands/decider.js';
import { handleCommand } from '../../commands/handle-command.js';
import { ConflictError } from '../../infra/errors.js';
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
  const result = await handleCommand(ctx, 'thing-1', thingDecider, { type: 'CreateThing', data: { id: 1 } }, { newStream: true });
  t.same(result.events, [{ type: 'ThingCreated', data: { id: 1 } }]);
  t.equal(reads, 0, 'the stream was not read');
  t.equal((await readStream('thing-1')).length, 1);
});

t.test('newStream on a stream that exists after all: the conflict is retried with a read, and the decider refuses', async (t) => {
  const ctx = sqliteCommandContext(t);
  await handleCommand(ctx, 'thing-1', thingDecider, { type: 'CreateThing', data: { id: 1 } });
  await t.rejects(
    handleCommand(ctx, 'thing-1', thingDecider, { type: 'CreateThing', data: { id: 1 } }, { newStream: true }),
    new ConflictError('Thing 1 already exists.'),
  );
  t.equal((await ctx.eventStore.readStream('thing-1')).length, 1, 'nothing appended');
});
