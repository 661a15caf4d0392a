import type { AllEventsHandler, EventStore, StoredEvent, Subscription } from './port.js';

const BATCH_SIZE = 1000;
/** Other processes (the import CLI) may append too; a slow poll notices their events. */
const IDLE_POLL_MS = 500;

/**
 * Reads the log from a position in batches, hands each batch to the handler, and sleeps until
 * woken by an append (or the idle poll). A failing handler is retried after a pause, from the
 * same position, so nothing is skipped.
 *
 * The store tells it of each commit of this process with the events written. When those
 * continue the log exactly where the handler left it, they are the next batch as they are:
 * reading back and decoding what was just written cost as much as writing it. Anything else
 * (a gap left by another process's append, a handler retry, a subscriber far behind) is read
 * from the log.
 */
export function pollingSubscription(
  store: Pick<EventStore, 'readAll'>,
  after: number,
  handler: AllEventsHandler,
  onCommit: (committed: (events: StoredEvent[]) => void) => () => void,
): Subscription {
  let position = after;
  let stopped = false;
  let wakeUp: (() => void) | null = null;
  let pending = false;
  let handed: StoredEvent[] = [];
  const unlisten = onCommit((events) => {
    // More than a batch is never handed on as it is: the subscriber reads those from the log.
    if (handed.length + events.length <= BATCH_SIZE) for (const event of events) handed.push(event);
    else handed = [];
    pending = true;
    wakeUp?.();
  });

  /** The handed events, when they are exactly the log after `position`; otherwise null. */
  const takeHanded = (): StoredEvent[] | null => {
    const events = handed;
    handed = [];
    const contiguous =
      events.length > 0 &&
      events[0].position === position + 1 &&
      events[events.length - 1].position === position + events.length;
    return contiguous ? events : null;
  };

  // One timer for the idle poll, not one per sleep: the loop sleeps after every commit's batch.
  // A sleep thus lasts until the next commit or the next tick, at most IDLE_POLL_MS.
  const idlePoll = setInterval(() => wakeUp?.(), IDLE_POLL_MS);
  const sleep = () =>
    new Promise<void>((resolve) => {
      wakeUp = () => {
        wakeUp = null;
        resolve();
      };
      if (pending || stopped) wakeUp();
    });

  const loop = (async () => {
    while (!stopped) {
      pending = false;
      let batch;
      try {
        batch = takeHanded() ?? (await store.readAll(position, BATCH_SIZE));
        if (batch.length > 0) {
          await handler(batch);
          position = batch[batch.length - 1].position;
          // A short batch held everything appended before the read; later appends set pending.
          if (batch.length === BATCH_SIZE || pending) continue;
        }
      } catch {
        if (stopped) break;
        await sleep();
        continue;
      }
      await sleep();
    }
  })();

  return {
    async stop() {
      stopped = true;
      clearInterval(idlePoll);
      unlisten();
      wakeUp?.();
      await loop;
    },
  };
}
