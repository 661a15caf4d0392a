import t from 'tap';
import { InProcessJobQueue } from '../../../infra/job-queue/in-process.js';

/**
 * Counts turns of the event loop: a setImmediate chain of its own, one step per check phase.
 * A job records the turn it ran in; jobs sharing a turn ran with nothing (no request, no timer,
 * no I/O callback) between them.
 */
function turnCounter(): { now(): number; stop(): void } {
  let turn = 0;
  let stopped = false;
  const step = () => {
    turn += 1;
    if (!stopped) setImmediate(step);
  };
  setImmediate(step);
  return { now: () => turn, stop: () => (stopped = true) };
}

/** The most jobs any one turn ran. */
function mostInOneTurn(turns: number[]): number {
  const perTurn = new Map<number, number>();
  for (const turn of turns) perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1);
  return Math.max(...perTurn.values());
}

for (const concurrency of [1, 2]) {
  t.test(`a backlog fed one add at a time runs at most ${concurrency} job(s) per turn of the event loop`, async (t) => {
    const queue = new InProcessJobQueue();
    t.teardown(() => queue.close());
    const turns = turnCounter();
    t.teardown(() => turns.stop());
    const ran: number[] = [];
    // Jobs that never wait on I/O (stand-in vectors, SQLite), and each enqueues a follow-up
    // as an index job enqueues its embed job.
    await queue.process<number, void>(
      'work',
      async (n) => {
        ran.push(turns.now());
        if (n % 2 === 0) await queue.add('work', n + 1);
      },
      { concurrency },
    );
    // As the start's catch-up queues a page: one awaited add after another.
    for (let n = 0; n < 400; n += 2) await queue.add('work', n);
    await queue.drain('work');
    t.equal(ran.length, 400, 'every job ran');
    t.ok(mostInOneTurn(ran) <= concurrency, `at most ${concurrency} per turn (most: ${mostInOneTurn(ran)})`);
  });
}

t.test('a request arriving during a backlog waits one job, not the backlog', async (t) => {
  const queue = new InProcessJobQueue();
  t.teardown(() => queue.close());
  let done = 0;
  await queue.process<number, void>('work', async () => {
    // About a millisecond of work that never yields, like an index job.
    const until = performance.now() + 1;
    while (performance.now() < until);
    done += 1;
  });
  for (let n = 0; n < 300; n++) await queue.add('work', n);
  // A timer due at once stands for a request: it runs after a job or two, while most wait.
  await new Promise((resolve) => setTimeout(resolve, 0));
  t.ok(done < 30, `a timer ran after ${done} of 300 jobs`);
  await queue.drain('work');
  t.equal(done, 300);
});
