import t from 'tap';
import { DependencyUnavailableError } from '../../../infra/errors.js';
import { InProcessJobQueue } from '../../../infra/job-queue/in-process.js';
import type { EnqueueOptions } from '../../../infra/job-queue/port.js';
import type { ResourceRef } from '../../../contracts/chatbot/documents.js';
import { IndexScheduler, INDEX_QUEUE } from '../../../workers/chatbot/index-queue.js';

/** An in-process queue whose store can be switched off, as Redis going away would. */
class SwitchableQueue extends InProcessJobQueue {
  up = true;
  attempts = 0;

  override async add<Data>(queue: string, data: Data, options?: EnqueueOptions): Promise<string> {
    this.attempts += 1;
    if (!this.up) throw new DependencyUnavailableError('Redis');
    return super.add(queue, data, options);
  }
}

function silentLogger() {
  const lines: string[] = [];
  const log = (_details: object, message: string) => void lines.push(message);
  return { lines, logger: { warn: log, info: log, error: log } };
}

t.test('with the queue away, index jobs are postponed at once and queued when it is back', async (t) => {
  const jobs = new SwitchableQueue();
  const { lines, logger } = silentLogger();
  const scheduler = new IndexScheduler(jobs, logger);
  t.teardown(async () => {
    scheduler.stop();
    await jobs.close();
  });
  const ran: ResourceRef[] = [];
  await jobs.process<ResourceRef, void>(INDEX_QUEUE, async (ref) => {
    scheduler.started(ref);
    ran.push(ref);
  });

  jobs.up = false;
  const started = Date.now();
  await scheduler.enqueue({ type: 'item', id: 1 });
  await scheduler.enqueue({ type: 'item', id: 1 });
  await scheduler.enqueue({ type: 'media', id: 2 });
  t.ok(Date.now() - started < 100, 'enqueue neither throws nor waits');
  t.equal(scheduler.postponedCount, 2, 'one postponed job per resource');
  t.equal(jobs.attempts, 1, 'the queue is not asked again for every change while it is away');
  t.equal(lines.length, 1, 'logged once');

  jobs.up = true;
  const deadline = Date.now() + 5_000;
  while (scheduler.postponedCount > 0 || ran.length < 2) {
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await jobs.drain(INDEX_QUEUE);
  t.same(
    ran.map((r) => `${r.type}-${r.id}`).sort(),
    ['item-1', 'media-2'],
    'every postponed resource is indexed once the queue is back',
  );
  t.equal(scheduler.postponedCount, 0);
});

t.test('errors other than an unavailable queue still reach the caller', async (t) => {
  const jobs = new InProcessJobQueue();
  const scheduler = new IndexScheduler(jobs);
  await jobs.close();
  await t.rejects(scheduler.enqueue({ type: 'item', id: 1 }), /closed/);
  t.equal(scheduler.postponedCount, 0);
});
