import type { AllEventsHandler, Subscription } from '../event-store/port.js';

export interface SubscribeOptions {
  /**
   * Called before the first batch after this subscriber was given the group's events, at its
   * first join and again after each rebalance: another process of the group may have handled
   * events meanwhile, so what this one holds in memory about the group's progress is stale.
   * A failure holds the batch, which comes again.
   */
  assigned?(): Promise<void>;
}

/**
 * Delivers every event of the log to each subscriber group, at least once and in order per
 * stream, starting after the group's checkpoint.
 */
export interface EventBus {
  subscribe(group: string, after: number, handler: AllEventsHandler, options?: SubscribeOptions): Promise<Subscription>;
  /**
   * True when a group's subscribers in several processes share its events (a Kafka consumer
   * group): each event goes to one of them, so a process cannot learn from its own subscription
   * alone how far the group has come. Absent: every subscription gets every event.
   */
  readonly sharedGroups?: boolean;
  /** Resolves when the bus's servers answer; absent for a bus in this process (the event store's own subscription). */
  ping?(): Promise<void>;
  close(): Promise<void>;
}
