import type { AllEventsHandler, Subscription } from '../event-store/port.js';

/**
 * Delivers every event of the log to each subscriber group, at least once and in order per
 * stream, starting after the group's checkpoint.
 */
export interface EventBus {
  subscribe(group: string, after: number, handler: AllEventsHandler): Promise<Subscription>;
  /** Resolves when the bus's servers answer; absent for a bus in this process (the event store's own subscription). */
  ping?(): Promise<void>;
  close(): Promise<void>;
}
