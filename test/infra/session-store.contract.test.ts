import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import t from 'tap';
import { FixedClock } from '../../infra/clock/port.js';
import { SESSION_TTL_MS, type SessionStore } from '../../infra/session-store/port.js';
import { createRequestRedisClient } from '../../infra/redis/request-client.js';
import { RedisSessionStore } from '../../infra/session-store/redis.js';
import { SqliteSessionStore } from '../../infra/session-store/sqlite.js';

interface Context {
  testdir(): string;
  teardown(fn: () => unknown): void;
}

/**
 * One backing store (a file, a Redis prefix) for one test: `open` connects a store to it, as a
 * server process would, and may be called again to stand for a restart or a second server;
 * `stored` is everything the backing holds, as text.
 */
interface Backing {
  open(clock: FixedClock): SessionStore;
  stored(): Promise<string>;
}
type Factory = (t: Context) => Backing;

const REDIS_URL = process.env.REDIS_URL;

/** The one contract every SessionStore adapter keeps. */
function sessionStoreContract(name: string, factory: Factory | null, skip?: string): void {
  t.test(name, skip ? { skip } : {}, async (t) => {
    const backingFor = factory as Factory;
    const start = new Date('2026-03-01T10:00:00Z');

    t.test('a created session answers its user; another token answers null', async (t) => {
      const store = backingFor(t).open(new FixedClock(start));
      const first = await store.create(7);
      const second = await store.create(7);
      t.match(first, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
      t.not(first, second, 'every login gets its own token');
      t.equal(await store.userIdFor(first), 7);
      t.equal(await store.userIdFor(second), 7);
      t.equal(await store.userIdFor(`${first}x`), null);
      t.equal(await store.userIdFor(''), null);
    });

    t.test('destroy ends one session and leaves the others; an unknown token is no error', async (t) => {
      const store = backingFor(t).open(new FixedClock(start));
      const ended = await store.create(1);
      const kept = await store.create(2);
      await store.destroy(ended);
      await store.destroy(ended);
      await store.destroy('never-issued');
      t.equal(await store.userIdFor(ended), null);
      t.equal(await store.userIdFor(kept), 2);
    });

    t.test('a session lasts SESSION_TTL_MS by the clock, then answers null', async (t) => {
      const clock = new FixedClock(start);
      const store = backingFor(t).open(clock);
      const token = await store.create(3);
      clock.advance(SESSION_TTL_MS - 1);
      t.equal(await store.userIdFor(token), 3, 'valid up to the last millisecond');
      clock.advance(1);
      t.equal(await store.userIdFor(token), null, 'expired');
    });

    t.test('sessions outlive the process that made them and are shared by every store over the backing', async (t) => {
      const backing = backingFor(t);
      const clock = new FixedClock(start);
      const before = backing.open(clock);
      const token = await before.create(4);
      const ended = await before.create(5);
      await before.close();
      const afterRestart = backing.open(clock);
      const otherServer = backing.open(clock);
      t.equal(await afterRestart.userIdFor(token), 4, 'a restart keeps the login');
      await otherServer.destroy(ended);
      t.equal(await afterRestart.userIdFor(ended), null, 'a logout on one server ends the session on all');
      t.equal(await otherServer.userIdFor(token), 4);
    });

    t.test('the store keeps a digest of the token, never the token', async (t) => {
      const backing = backingFor(t);
      const store = backing.open(new FixedClock(start));
      const token = await store.create(6);
      const stored = await backing.stored();
      t.ok(stored.length > 0, 'the session is stored');
      t.notOk(stored.includes(token), 'the token itself is nowhere in the store');
    });
  });
}

function sqliteBacking(t: Context): Backing {
  const file = join(t.testdir(), 'sessions.sqlite');
  const open: SessionStore[] = [];
  t.teardown(async () => {
    for (const store of open) await store.close();
  });
  return {
    open(clock) {
      const store = new SqliteSessionStore(file, clock);
      open.push(store);
      return store;
    },
    async stored() {
      const db = new Database(file, { readonly: true });
      try {
        return JSON.stringify(db.prepare('SELECT * FROM sessions').all());
      } finally {
        db.close();
      }
    },
  };
}

function redisBacking(t: Context): Backing {
  const prefix = `test-sessions-${randomUUID()}:`;
  const admin = new Redis(REDIS_URL as string);
  const open: SessionStore[] = [];
  const connections: Redis[] = [];
  t.teardown(async () => {
    for (const store of open) await store.close();
    for (const connection of connections) connection.disconnect();
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    admin.disconnect();
  });
  return {
    open(clock) {
      // A connection of its own, as another server process would have.
      const connection = createRequestRedisClient(REDIS_URL as string, { uses: 'session store test' });
      connections.push(connection);
      const store = new RedisSessionStore(connection, clock, prefix);
      open.push(store);
      return store;
    },
    async stored() {
      const keys = await admin.keys(`${prefix}*`);
      const values = await Promise.all(keys.map((key) => admin.get(key)));
      return JSON.stringify({ keys, values });
    },
  };
}

sessionStoreContract('SQLite session store', sqliteBacking);
sessionStoreContract(
  'Redis session store',
  REDIS_URL ? redisBacking : null,
  REDIS_URL
    ? undefined
    : 'REDIS_URL unset: the Redis session store needs a Redis (e.g. REDIS_URL=redis://127.0.0.1:6379)',
);
