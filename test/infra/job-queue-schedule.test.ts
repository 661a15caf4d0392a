import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import t from 'tap';
import { FixedClock } from '../../infra/clock/port.js';
import { BullMqJobQueue } from '../../infra/job-queue/bullmq.js';
import { InProcessJobQueue } from '../../infra/job-queue/in-process.js';
import type { JobContext } from '../../infra/job-queue/port.js';

const REDIS_URL = process.env.REDIS_URL;
const DAILY = { expression: '0 3 * * *', timezone: 'UTC' };

async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

t.test('in-process queue: a job at the run the clock reaches, once; rescheduling replaces; null stops', async (t) => {
  const clock = new FixedClock(new Date('2026-03-04T02:59:59.800Z'));
  const queue = new InProcessJobQueue({ clock });
  t.teardown(() => queue.close());
  const runs: { data: unknown; job: JobContext }[] = [];
  await queue.process('nightly', async (data, job) => void runs.push({ data, job }));
  await queue.schedule('nightly', 'backup', DAILY, { n: 1 });
  // Called again, as every start does: the same scheduler, not a second one.
  await queue.schedule('nightly', 'backup', DAILY, { n: 1 });
  await until('the 03:00 run', () => runs.length > 0);
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal(runs.length, 1, 'one job for the run');
  t.same(runs[0].data, { n: 1 });
  t.same(runs[0].job.scheduledFor, new Date('2026-03-04T03:00:00.000Z'), 'the job knows its run');

  // The clock moved to just before the next day's run: a schedule set now waits for it by the clock.
  clock.set(new Date('2026-03-05T02:59:59.900Z'));
  await queue.schedule('nightly', 'backup', DAILY, { n: 2 });
  await until("the next day's run", () => runs.length > 1);
  t.same(runs[1].job.scheduledFor, new Date('2026-03-05T03:00:00.000Z'));
  // And null removes one about to fire.
  clock.set(new Date('2026-03-06T02:59:59.900Z'));
  await queue.schedule('nightly', 'backup', DAILY, { n: 3 });
  await queue.schedule('nightly', 'backup', null, {});
  await new Promise((resolve) => setTimeout(resolve, 400));
  t.equal(runs.length, 2, 'no run once removed');
});

t.test(
  'BullMQ: two consumers of one queue, each setting the schedule, get one job per run',
  { skip: REDIS_URL ? false : 'REDIS_URL is not set' },
  async (t) => {
    const prefix = `schedule-test-${randomUUID()}`;
    const queues = [
      await BullMqJobQueue.connect({ url: REDIS_URL as string, prefix }),
      await BullMqJobQueue.connect({ url: REDIS_URL as string, prefix }),
    ];
    const redis = new Redis(REDIS_URL as string);
    t.teardown(async () => {
      for (const queue of queues) await queue.close();
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    });
    const runs: { consumer: number; at: number | undefined }[] = [];
    for (const [consumer, queue] of queues.entries()) {
      await queue.process('ticks', async (_data, job) => void runs.push({ consumer, at: job.scheduledFor?.getTime() }));
      // Every second: the port takes any schedule; the 15-minute floor is the configuration's.
      await queue.schedule('ticks', 'every-second', { expression: '* * * * * *', timezone: 'UTC' }, {});
    }
    await until('three runs', () => runs.length >= 3, 15_000);
    for (const queue of queues) await queue.schedule('ticks', 'every-second', null, {});
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const ticks = runs.map((run) => run.at);
    t.ok(
      ticks.every((at) => typeof at === 'number' && at % 1000 === 0),
      'each job knows its run (a whole second)',
    );
    t.equal(new Set(ticks).size, ticks.length, `one job per run across both consumers (${ticks.join(', ')})`);
    const settled = runs.length;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    t.equal(runs.length, settled, 'no run after the scheduler was removed');
  },
);
