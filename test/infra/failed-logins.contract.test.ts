import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import t from 'tap';
import { FixedClock } from '../../infra/clock/port.js';
import { MemoryFailedLogins } from '../../infra/failed-logins/memory.js';
import type { FailedLogins } from '../../infra/failed-logins/port.js';
import { RedisFailedLogins } from '../../infra/failed-logins/redis.js';
import { createRequestRedisClient } from '../../infra/redis/request-client.js';

interface Context {
  teardown(fn: () => unknown): void;
}

const WINDOW_SECONDS = 900;
const REDIS_URL = process.env.REDIS_URL;

/** A counter for one test; `another` connects a second one to the same backing (a second server), where the adapter has one. */
type Factory = (t: Context, clock: FixedClock) => { counter: FailedLogins; another: (() => FailedLogins) | null };

/** The one contract every FailedLogins adapter keeps. */
function failedLoginsContract(name: string, factory: Factory | null, skip?: string): void {
  t.test(name, skip ? { skip } : {}, async (t) => {
    const make = factory as Factory;
    const start = new Date('2026-03-01T10:00:00Z');

    t.test('failures count up per key, each key on its own', async (t) => {
      const { counter } = make(t, new FixedClock(start));
      t.same(await counter.count('a'), { failures: 0, retryAfterSeconds: 0 }, 'nothing recorded');
      await counter.record('a');
      await counter.record('a');
      await counter.record('b');
      t.same(await counter.count('a'), { failures: 2, retryAfterSeconds: WINDOW_SECONDS });
      t.same(await counter.count('b'), { failures: 1, retryAfterSeconds: WINDOW_SECONDS });
    });

    t.test('the first failure starts the window; the count is forgotten when it ends', async (t) => {
      const clock = new FixedClock(start);
      const { counter } = make(t, clock);
      await counter.record('a');
      clock.advance(600_000);
      await counter.record('a');
      t.same(
        await counter.count('a'),
        { failures: 2, retryAfterSeconds: 300 },
        'a later failure does not move the end',
      );
      clock.advance(299_500);
      t.same(
        await counter.count('a'),
        { failures: 2, retryAfterSeconds: 1 },
        'at least a second while the window lasts',
      );
      clock.advance(500);
      t.same(await counter.count('a'), { failures: 0, retryAfterSeconds: 0 }, 'the window ended');
      await counter.record('a');
      t.same(
        await counter.count('a'),
        { failures: 1, retryAfterSeconds: WINDOW_SECONDS },
        'a failure after it starts a new window',
      );
    });

    t.test('clear forgets one key', async (t) => {
      const { counter } = make(t, new FixedClock(start));
      await counter.record('a');
      await counter.record('b');
      await counter.clear('a');
      await counter.clear('never-recorded');
      t.equal((await counter.count('a')).failures, 0);
      t.equal((await counter.count('b')).failures, 1);
    });

    t.test('servers over one backing share the count', async (t) => {
      const clock = new FixedClock(start);
      const { counter, another } = make(t, clock);
      if (!another) {
        t.pass('counted in one process only: nothing to share');
        return;
      }
      const second = another();
      await counter.record('a');
      await second.record('a');
      t.equal((await counter.count('a')).failures, 2);
      await second.clear('a');
      t.equal((await counter.count('a')).failures, 0);
    });
  });
}

function memoryFactory(t: Context, clock: FixedClock): ReturnType<Factory> {
  const counter = new MemoryFailedLogins(WINDOW_SECONDS, clock);
  t.teardown(() => counter.close());
  return { counter, another: null };
}

function redisFactory(t: Context, clock: FixedClock): ReturnType<Factory> {
  const prefix = `test-failed-logins-${randomUUID()}:`;
  const opened: FailedLogins[] = [];
  const connections: Redis[] = [];
  const open = () => {
    // A connection of its own, as another server process would have.
    const connection = createRequestRedisClient(REDIS_URL as string, { uses: 'failed-login counter test' });
    connections.push(connection);
    const counter = new RedisFailedLogins(connection, WINDOW_SECONDS, clock, prefix);
    opened.push(counter);
    return counter;
  };
  t.teardown(async () => {
    for (const counter of opened) await counter.close();
    for (const connection of connections) connection.disconnect();
    const admin = new Redis(REDIS_URL as string);
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    admin.disconnect();
  });
  return { counter: open(), another: open };
}

failedLoginsContract('in-process failed-login counter', memoryFactory);
failedLoginsContract(
  'Redis failed-login counter',
  REDIS_URL ? redisFactory : null,
  REDIS_URL ? undefined : 'REDIS_URL unset: the Redis counter needs a Redis (e.g. REDIS_URL=redis://127.0.0.1:6379)',
);
