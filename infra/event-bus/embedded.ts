import type { AllEventsHandler, EventStore, Subscription } from '../event-store/port.js';
import type { EventBus } from './port.js';

/** The embedded bus is the event store's own subscription, in process: every subscriber gets every event. */
export class EmbeddedEventBus implements EventBus {
  constructor(private readonly store: EventStore) {}

  async subscribe(_group: string, after: number, handler: AllEventsHandler): Promise<Subscription> {
    return this.store.subscribeToAll(after, handler);
  }

  async close(): Promise<void> {}
}
