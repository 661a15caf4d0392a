import type { DocumentStore } from '../infra/document-store/port.js';
import type { EventBus } from '../infra/event-bus/port.js';
import type { EventStore, StoredEvent, Subscription } from '../infra/event-store/port.js';
import { DependencyUnavailableError } from '../infra/errors.js';
import type { Projection } from './projection.js';

export interface ProjectionLogger {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
}

interface CheckpointDoc {
  _id: string;
  position: number;
  [key: string]: unknown;
}

interface Waiter {
  position: number;
  /** Date.now() past which it is refused. */
  deadline: number;
  resolve(): void;
  reject(error: Error): void;
}

const CHECKPOINTS = '_checkpoints';
const GROUP = 'projections';

/**
 * Folds the log into the read models. Every projection keeps its own checkpoint: an event at or
 * below it is skipped (at-least-once delivery made idempotent). A handler that throws is logged
 * and skipped so the others go on; the checkpoint moves only after the batch was handled.
 */
export class ProjectionRunner {
  private readonly checkpoints = new Map<string, number>();
  private readonly byType = new Map<string, Projection[]>();
  private position = 0;
  private subscription: Subscription | null = null;
  private waiters: Waiter[] = [];
  /** One timer for every waiter's deadline, armed while any waits: a create would otherwise set and clear its own. */
  private deadlineTimer: NodeJS.Timeout | null = null;
  private armedDeadline = Number.POSITIVE_INFINITY;
  private readonly afterBatch: ((events: StoredEvent[]) => Promise<void> | void)[] = [];

  constructor(
    private readonly projections: readonly Projection[],
    private readonly bus: EventBus,
    private readonly eventStore: EventStore,
    private readonly documents: DocumentStore,
    private readonly logger: ProjectionLogger,
  ) {
    const names = new Set<string>();
    for (const projection of projections) {
      if (names.has(projection.name)) throw new Error(`Two projections are named ${projection.name}.`);
      names.add(projection.name);
      for (const type of projection.handles) {
        const list = this.byType.get(type) ?? [];
        list.push(projection);
        this.byType.set(type, list);
      }
    }
  }

  /** Runs after each handled batch (e.g. workers reacting to events): errors are logged, not fatal. */
  onBatch(listener: (events: StoredEvent[]) => Promise<void> | void): void {
    this.afterBatch.push(listener);
  }

  get currentPosition(): number {
    return this.position;
  }

  async start(): Promise<void> {
    const saved = this.documents.persistent
      ? await this.documents.collection<CheckpointDoc>(CHECKPOINTS).find({})
      : [];
    const savedByName = new Map(saved.map((c) => [c._id, c.position]));
    for (const projection of this.projections) {
      this.checkpoints.set(projection.name, savedByName.get(projection.name) ?? 0);
    }
    const from = Math.min(...this.checkpoints.values(), Number.MAX_SAFE_INTEGER);
    this.position = from === Number.MAX_SAFE_INTEGER ? 0 : from;
    this.subscription = await this.bus.subscribe(GROUP, this.position, (batch) => this.handle(batch));
  }

  /** Applies one batch; public so the rebuild CLI and tests can drive a replay directly. */
  async handle(batch: StoredEvent[]): Promise<void> {
    for (const event of batch) {
      const interested = this.byType.get(event.type);
      if (!interested) continue;
      for (const projection of interested) {
        if (event.position <= (this.checkpoints.get(projection.name) ?? 0)) continue;
        try {
          await projection.apply(event, this.documents);
        } catch (error) {
          if (error instanceof DependencyUnavailableError) throw error;
          this.logger.error(
            { projection: projection.name, eventType: event.type, position: event.position, err: error },
            'projection handler failed; event skipped',
          );
        }
      }
    }
    const last = batch[batch.length - 1]?.position ?? this.position;
    for (const projection of this.projections) {
      if ((this.checkpoints.get(projection.name) ?? 0) < last) this.checkpoints.set(projection.name, last);
    }
    if (this.documents.persistent) {
      await this.documents
        .collection<CheckpointDoc>(CHECKPOINTS)
        .putMany(this.projections.map((p) => ({ _id: p.name, position: this.checkpoints.get(p.name) ?? 0 })));
    }
    this.position = Math.max(this.position, last);
    for (const listener of this.afterBatch) {
      try {
        await listener(batch);
      } catch (error) {
        this.logger.error({ err: error }, 'after-batch listener failed');
      }
    }
    this.releaseWaiters();
  }

  private releaseWaiters(): void {
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.position <= this.position) waiter.resolve();
      else still.push(waiter);
    }
    this.waiters = still;
    if (still.length === 0) this.disarmDeadline();
  }

  /** Refuses the waiters whose deadline has passed, and arms the timer for the next deadline. */
  private expireWaiters(): void {
    this.deadlineTimer = null;
    this.armedDeadline = Number.POSITIVE_INFINITY;
    const now = Date.now();
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.deadline <= now) waiter.reject(new DependencyUnavailableError('read models', 'Read models did not catch up in time.'));
      else still.push(waiter);
    }
    this.waiters = still;
    if (still.length > 0) this.armDeadline(still.reduce((soonest, waiter) => Math.min(soonest, waiter.deadline), Number.POSITIVE_INFINITY));
  }

  /** Makes the timer fire by `deadline` (it may fire sooner, for another waiter). */
  private armDeadline(deadline: number): void {
    if (deadline >= this.armedDeadline) return;
    this.disarmDeadline();
    this.armedDeadline = deadline;
    this.deadlineTimer = setTimeout(() => this.expireWaiters(), Math.max(0, deadline - Date.now()));
  }

  private disarmDeadline(): void {
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    this.deadlineTimer = null;
    this.armedDeadline = Number.POSITIVE_INFINITY;
  }

  /** Resolves once every projection has applied the log up to `position` (read-your-writes). */
  waitFor(position: number, timeoutMs = 10_000): Promise<void> {
    if (position <= this.position) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const deadline = Date.now() + timeoutMs;
      this.waiters.push({ position, deadline, resolve, reject });
      this.armDeadline(deadline);
    });
  }

  /** Waits until the read models have everything the store holds right now. */
  async catchUp(timeoutMs = 60_000): Promise<void> {
    await this.waitFor(await this.eventStore.lastPosition(), timeoutMs);
  }

  /** Drops every read model and checkpoint, so the next start replays the whole log. */
  async reset(): Promise<void> {
    await this.documents.dropAll();
    for (const projection of this.projections) this.checkpoints.set(projection.name, 0);
    this.position = 0;
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = null;
  }
}
