import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import t from 'tap';
import { DependencyUnavailableError } from '../../infra/errors.js';
import { BullMqJobQueue, closeQuietly, redisOptionsFromUrl } from '../../infra/job-queue/bullmq.js';
import { InProcessJobQueue } from '../../infra/job-queue/in-process.js';
import { JobFailedError, PermanentJobError, type JobQueue } from '../../infra/job-queue/port.js';

interface Context {
  teardown(fn: () => unknown): void;
}

/** Builds a fresh queue for one test and registers its clean-up on the test. */
type Factory = (t: Context) => Promise<JobQueue>;

const REDIS_URL = process.env.REDIS_URL;

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The one contract every JobQueue adapter keeps. */
function jobQueueContract(name: string, factory: Factory | null, durable: boolean, skip?: string): void {
  t.test(name, skip ? { skip } : {}, async (t) => {
    const make = factory as Factory;

    t.test('the queue says whether its jobs outlive the process', async (t) => {
      t.equal((await make(t)).durable, durable);
    });

    t.test('add runs the handler with the data and the job id; drain waits for it', async (t) => {
      const queue = await make(t);
      const seen: { data: unknown; id: string }[] = [];
      await queue.process<{ n: number }, void>('q', async (data, job) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        seen.push({ data, id: job.id });
      });
      const ids = [await queue.add('q', { n: 1 }), await queue.add('q', { n: 2 }), await queue.add('q', { n: 3 })];
      await within(queue.drain('q'), 10_000, 'drain');
      t.same(
        seen.map((s) => s.data).sort((a, b) => (a as { n: number }).n - (b as { n: number }).n),
        [{ n: 1 }, { n: 2 }, { n: 3 }],
      );
      t.same(seen.map((s) => s.id).sort(), [...ids].sort(), 'the handler sees the id add returned');
      t.equal(new Set(ids).size, 3, 'ids are distinct');
    });

    t.test('drain on an idle queue resolves at once', async (t) => {
      const queue = await make(t);
      await within(queue.drain('idle'), 2_000, 'drain of an empty queue');
      t.pass();
    });

    t.test('addAndWait resolves with the handler result, also when the worker starts later', async (t) => {
      const queue = await make(t);
      const waiting = queue.addAndWait<{ a: number; b: number }, { sum: number }>('sum', { a: 2, b: 3 });
      await queue.process<{ a: number; b: number }, { sum: number }>('sum', async ({ a, b }) => ({ sum: a + b }));
      t.same(await within(waiting, 10_000, 'result'), { sum: 5 });
      t.same(await queue.addAndWait('sum', { a: 10, b: -4 }), { sum: 6 });
    });

    t.test('a failing job is retried until it succeeds', async (t) => {
      const queue = await make(t);
      const attempts: number[] = [];
      await queue.process<null, string>('flaky', async (_data, job) => {
        attempts.push(job.attemptsMade);
        if (attempts.length < 3) throw new Error(`failure ${attempts.length}`);
        return 'ok';
      });
      const result = await within(
        queue.addAndWait<null, string>('flaky', null, { attempts: 4, backoffMs: 10 }),
        10_000,
        'retried job',
      );
      t.equal(result, 'ok');
      t.same(attempts, [0, 1, 2], 'three attempts, each told how many came before');
    });

    t.test('drain waits for a job that is backing off between attempts', async (t) => {
      const queue = await make(t);
      let attempts = 0;
      let succeeded = false;
      await queue.process<null, void>('backing-off', async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('first attempt fails');
        succeeded = true;
      });
      await queue.add('backing-off', null, { attempts: 2, backoffMs: 300 });
      await within(queue.drain('backing-off'), 10_000, 'drain');
      t.equal(attempts, 2);
      t.ok(succeeded, 'drain resolved only after the retry ran');
    });

    t.test('a job that fails every attempt rejects with JobFailedError carrying the message', async (t) => {
      const queue = await make(t);
      let calls = 0;
      await queue.process('doomed', async () => {
        calls += 1;
        throw new Error('disk is full');
      });
      const error = await within(
        queue.addAndWait('doomed', {}, { attempts: 2, backoffMs: 10 }),
        10_000,
        'failure',
      ).then(
        () => null,
        (e: unknown) => e,
      );
      t.ok(error instanceof JobFailedError, 'JobFailedError');
      t.equal((error as Error).message, 'disk is full');
      t.equal(calls, 2, 'every attempt was made');
    });

    t.test('PermanentJobError is not retried', async (t) => {
      const queue = await make(t);
      let calls = 0;
      await queue.process('permanent', async () => {
        calls += 1;
        throw new PermanentJobError('bad archive');
      });
      const error = await within(
        queue.addAndWait('permanent', {}, { attempts: 5, backoffMs: 10 }),
        10_000,
        'failure',
      ).then(
        () => null,
        (e: unknown) => e,
      );
      t.ok(error instanceof JobFailedError, 'JobFailedError');
      t.equal((error as Error).message, 'bad archive');
      t.equal(calls, 1, 'one attempt only');
    });

    t.test('backlog tells waiting, active and failed jobs per queue (for /health)', async (t) => {
      const queue = await make(t);
      const release = deferred();
      const started = deferred();
      await queue.process('busy', async (data: { fail?: boolean }) => {
        if (data.fail) throw new PermanentJobError('no');
        started.resolve();
        await release.promise;
      });
      await queue.addAndWait('busy', { fail: true }).catch(() => undefined);
      await queue.add('busy', {});
      await within(started.promise, 10_000, 'the first job starting');
      await queue.add('busy', {});
      await queue.add('busy', {});
      const backlog = await (
        queue.backlog as () => Promise<{ queue: string; waiting: number; active: number; failed: number }[]>
      ).call(queue);
      t.same(
        backlog.find((b) => b.queue === 'busy'),
        { queue: 'busy', waiting: 2, active: 1, failed: 1 },
      );
      release.resolve();
      await within(queue.drain('busy'), 10_000, 'drain');
    });

    t.test('concurrency bounds how many jobs run at once', async (t) => {
      const queue = await make(t);
      let active = 0;
      let peak = 0;
      const three = deferred();
      await queue.process(
        'parallel',
        async () => {
          active += 1;
          peak = Math.max(peak, active);
          if (active === 3) three.resolve();
          // Hold every job until three run together (or give up), so the peak is observable.
          await Promise.race([three.promise, new Promise((resolve) => setTimeout(resolve, 1_500))]);
          await new Promise((resolve) => setTimeout(resolve, 20));
          active -= 1;
        },
        { concurrency: 3 },
      );
      for (let i = 0; i < 7; i++) await queue.add('parallel', { i });
      await within(queue.drain('parallel'), 20_000, 'drain');
      t.equal(peak, 3, 'three at once, never more');
    });

    t.test('a jobId dedupes a pending job; once finished the same id runs again', async (t) => {
      const queue = await make(t);
      const runs: unknown[] = [];
      const first = await queue.add('dedupe', { v: 1 }, { jobId: 'resource-7' });
      const second = await queue.add('dedupe', { v: 2 }, { jobId: 'resource-7' });
      t.equal(first, 'resource-7');
      t.equal(second, 'resource-7');
      await queue.process('dedupe', async (data) => {
        runs.push(data);
      });
      await within(queue.drain('dedupe'), 10_000, 'drain');
      t.same(runs, [{ v: 1 }], 'the second add was ignored');
      await queue.add('dedupe', { v: 3 }, { jobId: 'resource-7' });
      await within(queue.drain('dedupe'), 10_000, 'drain');
      t.same(runs, [{ v: 1 }, { v: 3 }], 'a finished id can be enqueued again');
    });

    t.test('any string is a job id: colons and integer-looking ids are kept as given', async (t) => {
      const queue = await make(t);
      const seen: string[] = [];
      await queue.process<null, void>('ids', async (_data, job) => void seen.push(job.id));
      const ids = ['item-7:3f2a', 'a:b:c:d', '42', '%3A:%25', '%N1'];
      const added = [];
      for (const id of ids) added.push(await queue.add('ids', null, { jobId: id }));
      await within(queue.drain('ids'), 10_000, 'drain');
      t.same(added, ids, 'add answers the id it was given');
      t.same([...seen].sort(), [...ids].sort(), 'the handler sees the same ids');
    });

    t.test('queues are independent', async (t) => {
      const queue = await make(t);
      const seen: string[] = [];
      await queue.process<string, void>('a', async (data) => void seen.push(`a:${data}`));
      await queue.process<string, void>('b', async (data) => void seen.push(`b:${data}`));
      await queue.addAndWait('a', 'x');
      await queue.addAndWait('b', 'y');
      t.same(seen.sort(), ['a:x', 'b:y']);
    });
  });
}

jobQueueContract(
  'in-process job queue',
  async (t) => {
    const queue = new InProcessJobQueue();
    t.teardown(() => queue.close());
    return queue;
  },
  false,
);

/** Every test gets its own key prefix; its keys are deleted afterwards. */
const bullMqFactory: Factory = async (t) => {
  const prefix = `test-${randomUUID()}`;
  const queue = await BullMqJobQueue.connect({ url: REDIS_URL as string, prefix });
  t.teardown(async () => {
    await queue.close();
    const redis = new Redis(REDIS_URL as string);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });
  return queue;
};

jobQueueContract('BullMQ job queue', REDIS_URL ? bullMqFactory : null, true, REDIS_URL ? undefined : 'REDIS_URL unset');

t.test(
  'BullMQ: an unreachable Redis does not fail the start; jobs are refused fast with DependencyUnavailableError',
  async (t) => {
    const started = Date.now();
    const queue = await BullMqJobQueue.connect({ url: 'redis://127.0.0.1:1', connectTimeoutMs: 1000 });
    t.teardown(() => queue.close());
    t.ok(Date.now() - started < 3_000, 'connect gives up waiting within seconds');
    t.equal(queue.available, false, 'it knows Redis is away');
    await within(
      queue.process('down', async () => undefined),
      3_000,
      'a worker starts without Redis',
    );
    for (const attempt of [() => queue.add('down', {}), () => queue.addAndWait('down', {})]) {
      const before = Date.now();
      const error = await attempt().then(
        () => null,
        (e: unknown) => e,
      );
      t.ok(error instanceof DependencyUnavailableError, 'DependencyUnavailableError');
      t.equal((error as DependencyUnavailableError).dependency, 'Redis');
      t.ok(Date.now() - before < 3_000, 'within seconds');
    }
    const closing = Date.now();
    await queue.close();
    t.ok(Date.now() - closing < 5_000, 'closes without waiting for Redis');
  },
);

t.test(
  "BullMQ: a connection's error after its client closed is dropped, not thrown (taskforcesh/bullmq#3546)",
  async (t) => {
    // As BullMQ's close leaves its connections: every listener removed, while a connection that was
    // still being made may fail afterwards (its client ended by the close) and emit that failure.
    const connection = new EventEmitter();
    const blockingConnection = new EventEmitter();
    const worker = {
      connection,
      blockingConnection,
      close: async () => {
        connection.removeAllListeners();
        blockingConnection.removeAllListeners();
      },
    };
    await closeQuietly(worker as unknown as Parameters<typeof closeQuietly>[0], () => worker.close());
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    t.doesNotThrow(() => connection.emit('error', refused), 'the client connection');
    // Unheard, each emit would throw: what crashed a test process once, in CI.
    t.doesNotThrow(() => blockingConnection.emit('error', refused), "a worker's blocking connection");
  },
);

t.test("BullMQ: URLs become connection options (the keys' prefix: test/infra/deployment-name.test.ts)", async (t) => {
  t.same(redisOptionsFromUrl('redis://127.0.0.1:6379'), { host: '127.0.0.1', port: 6379 });
  t.same(redisOptionsFromUrl('rediss://user:p%40ss@cache.example.net:6380/2'), {
    host: 'cache.example.net',
    port: 6380,
    username: 'user',
    password: 'p@ss',
    db: 2,
    tls: {},
  });
  t.same(redisOptionsFromUrl('redis://redis'), { host: 'redis', port: 6379 });
});
