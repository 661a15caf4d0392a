import type { EventStore } from './port.js';

/**
 * The store with every append first asked of `guard`, which throws to refuse it (the command
 * context's store: no event is appended while the read models cannot save it, see
 * ProjectionRunner.refuseWritesWhileFull). Reads pass through.
 */
export function appendsGuardedBy(store: EventStore, guard: () => void): EventStore {
  return {
    async append(streamId, events, expected) {
      guard();
      return store.append(streamId, events, expected);
    },
    readStream: (streamId) => store.readStream(streamId),
    readLastEvent: (streamId) => store.readLastEvent(streamId),
    readAll: (after, limit) => store.readAll(after, limit),
    lastPosition: () => store.lastPosition(),
    countEvents: () => store.countEvents(),
    identity: () => store.identity(),
    subscribeToAll: (after, handler) => store.subscribeToAll(after, handler),
    storageFailure: () => store.storageFailure?.() ?? null,
    close: () => store.close(),
  };
}
