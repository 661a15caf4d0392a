import t, { type Test } from 'tap';
import { buildTestApp, ROLE_USERS } from '../../helper.js';
import { dropSchema, freshSchema } from '../../infra/event-store/postgres-schemas.js';

const PG_URL = process.env.PG_EVENTSTORE_URL;
const meta = { userId: null, at: '2026-01-01T00:00:00.000Z' };

interface LogReport {
  last_position: number | null;
  handled_position: number | null;
  lag: number | null;
}

/** /health's `log` on a runtime whose log EVENTSTORE_URL names (the embedded log when undefined). */
async function lagReported(t: Test, eventStoreUrl: string | undefined): Promise<void> {
  const { app, runtime } = await buildTestApp(t, {
    fixture: { users: ROLE_USERS.slice(0, 1) },
    config: { eventStoreUrl },
  });
  const log = async (): Promise<LogReport> => {
    const res = await app.inject({ method: 'GET', url: '/health' });
    t.equal(res.statusCode, 200);
    return (res.json() as { log: LogReport }).log;
  };
  await runtime.projections.catchUp();
  const caughtUp = await log();
  const last = await runtime.eventStore.lastPosition();
  t.ok(last > 0, 'the fixture is in the log');
  t.same(caughtUp, { last_position: last, handled_position: last, lag: 0 }, 'caught up: no lag');

  // The projections stopped (as a stuck runner), three events appended: the lag counts them.
  await runtime.projections.stop();
  for (let i = 0; i < 3; i++)
    await runtime.eventStore.append(`lag-${i}`, [{ type: 'LagProbe', data: {}, metadata: meta }], 0);
  t.same(await log(), { last_position: last + 3, handled_position: last, lag: 3 }, 'three events behind');
}

t.test('the lag on the embedded log', (t) => lagReported(t, undefined));

t.test('the lag on a PostgreSQL log', { skip: PG_URL ? false : 'PG_EVENTSTORE_URL unset' }, async (t) => {
  const schema = freshSchema();
  t.teardown(() => dropSchema(PG_URL ?? '', schema));
  const url = new URL(PG_URL ?? '');
  url.searchParams.set('schema', schema);
  await lagReported(t, url.toString());
});
