import { join } from 'node:path';
import t from 'tap';
import { FixedClock } from '../../../infra/clock/port.js';
import type { SessionStore } from '../../../infra/session-store/port.js';
import { RevocableSessionStore } from '../../../infra/session-store/revocations.js';
import { SqliteSessionStore } from '../../../infra/session-store/sqlite.js';

/**
 * A logout the store refuses still ends the session: refused here at once, its removal retried
 * until the store takes it, logged once per run of refusals.
 */

/** The SQLite store, with removals refused (as on a full disk) while `refusing` holds. */
function refusingStore(file: string, clock: FixedClock): { store: SessionStore; refuse(on: boolean): void } {
  const inner = new SqliteSessionStore(file, clock);
  let refusing = false;
  const store: SessionStore = {
    create: (userId) => inner.create(userId),
    userIdFor: (token) => inner.userIdFor(token),
    destroy: async (token) => {
      if (refusing) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      await inner.destroy(token);
    },
    close: () => inner.close(),
  };
  return { store, refuse: (on) => (refusing = on) };
}

t.test('a refused logout ends the session here at once, and in the store once it takes it', async (t) => {
  const file = join(t.testdir(), 'sessions.sqlite');
  const clock = new FixedClock(new Date('2026-03-01T10:00:00Z'));
  const { store, refuse } = refusingStore(file, clock);
  const logged: string[] = [];
  const logger = {
    warn: (_d: object, message: string) => logged.push(`warn: ${message}`),
    info: (_d: object, message: string) => logged.push(`info: ${message}`),
  };
  const sessions = new RevocableSessionStore(store, logger, 20);
  t.teardown(() => sessions.close());
  const [ended, other, kept] = [await sessions.create(1), await sessions.create(2), await sessions.create(3)];

  refuse(true);
  await sessions.destroy(ended);
  await sessions.destroy(other);
  t.equal(await sessions.userIdFor(ended), null, 'refused here at once');
  t.equal(await sessions.userIdFor(other), null);
  t.equal(await sessions.userIdFor(kept), 3, 'other sessions go on');
  t.equal(sessions.pendingRemovals, 2);
  const elsewhere = new SqliteSessionStore(file, clock);
  t.teardown(() => elsewhere.close());
  t.equal(await elsewhere.userIdFor(ended), 1, 'the store itself still holds it while it refuses');

  refuse(false);
  for (let tries = 0; tries < 100 && sessions.pendingRemovals > 0; tries++) await new Promise((r) => setTimeout(r, 10));
  t.equal(sessions.pendingRemovals, 0, 'the removals were retried');
  t.equal(await elsewhere.userIdFor(ended), null, 'and the store took them: another process refuses the token too');
  t.equal(await elsewhere.userIdFor(other), null);
  t.equal(await elsewhere.userIdFor(kept), 3);
  t.same(logged, [
    'warn: the session store refused to remove an ended session: it is refused here, and its removal retried',
    'info: the session store took the removals of the sessions ended meanwhile',
  ]);
});

t.test('close gives the store the removals it refused, once more', async (t) => {
  const file = join(t.testdir(), 'sessions.sqlite');
  const clock = new FixedClock(new Date('2026-03-01T10:00:00Z'));
  const { store, refuse } = refusingStore(file, clock);
  const quiet = { warn: () => undefined, info: () => undefined };
  const sessions = new RevocableSessionStore(store, quiet, 60_000);
  const token = await sessions.create(1);
  refuse(true);
  await sessions.destroy(token);
  refuse(false);
  await sessions.close();
  const reopened = new SqliteSessionStore(file, clock);
  t.teardown(() => reopened.close());
  t.equal(await reopened.userIdFor(token), null, 'after a restart the session is gone');
});
