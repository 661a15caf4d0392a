import type { AllEventsHandler, EventStore, Subscription } from './port.js';

const BATCH_SIZE = 1000;
/** Other processes (the import CLI) may append too; a slow poll notices their events. */
const IDLE_POLL_MS = 500;

/**
 * Reads the log from a position in batches, hands each batch to the handler, and sleeps until
 * woken by an append (or the idle poll). A failing handler is retried after a pause, from the
 * same position, so nothing is skipped.
 */
export function pollingSubscription(
  store: Pick<EventStore, 'readAll'>,
  after: number,
  handler: AllEventsHandler,
  onAppend: (wake: () => void) => () => void,
): Subscription {
  let position = after;
  let stopped = false;
  let wakeUp: (() => void) | null = null;
  let pending = false;
  const unlisten = onAppend(() => {
    pending = true;
    wakeUp?.();
  });

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = done;
      if (pending || stopped) done();
    });

  const loop = (async () => {
    while (!stopped) {
      pending = false;
      let batch;
      try {
        batch = await store.readAll(position, BATCH_SIZE);
        if (batch.length > 0) {
          await handler(batch);
          position = batch[batch.length - 1].position;
          // A short batch held everything appended before the read; later appends set pending.
          if (batch.length === BATCH_SIZE || pending) continue;
        }
      } catch {
        if (stopped) break;
        await sleep(IDLE_POLL_MS);
        continue;
      }
      await sleep(IDLE_POLL_MS);
    }
  })();

  return {
    async stop() {
      stopped = true;
      unlisten();
      wakeUp?.();
      await loop;
    },
  };
}
