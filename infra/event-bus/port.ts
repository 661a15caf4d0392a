import type { AllEventsHandler, Subscription } from '../event-store/port.js';

/**
 * Delivers every event of the log to each subscriber group, at least once and in order per
 * stream, starting after the group's checkpoint.
 */
export interface EventBus {
  subscribe(group: string, after: number, handler: AllEventsHandler): Promise<Subscription>;
  close(): Promise<void>;
}
