import type { ParkedProjection, ProjectionStatus, ReadModelProgress } from '../contracts/read-model-progress.js';
import type { DocumentStore } from '../infra/document-store/port.js';
import type { EventBus } from '../infra/event-bus/port.js';
import type { EventStore, StoredEvent, Subscription } from '../infra/event-store/port.js';
import { DependencyUnavailableError, StorageFullError } from '../infra/errors.js';
import { EVENT_UPCASTING } from '../contracts/upcasters.js';
import { PROJECTIONS_CONTROL_STREAM } from './control-events.js';
import type { Projection } from './projection.js';
import { FLOOR_ID, loadCheckpoints, loadHandled, saveCheckpoints, saveOwnCheckpoints } from './runner/checkpoints.js';
import type { ProjectionLogger } from './runner/logger.js';
import { ParkedProjections, RESUME_BATCH, type ResumeContext } from './runner/parked.js';
import { ReadYourWritesWaits } from './runner/waits.js';

export type { ProjectionLogger } from './runner/logger.js';

const GROUP = 'projections';

/** A projection's work since the runner started (the start log line and tests read it). */
export interface ProjectionStartStats {
  name: string;
  /** Its checkpoint when the runner started: 0 when it had none (a first start or a rebuild). */
  resumedFrom: number;
  /** Events it applied since. */
  applied: number;
  /** Position of the first of them, null when none. */
  firstApplied: number | null;
}

/** What the runner has folded, as of one moment: each projection's checkpoint and the parked ones. */
interface FoldedState {
  checkpoints: ReadonlyMap<string, number>;
  parked: ReadonlyMap<string, ParkedProjection>;
}

/** The first pause before folding lost writes again, and the longest: a full disk is retried, never spun on. */
const REFOLD_FIRST_MS = 250;
const REFOLD_MAX_MS = 2000;

/** Why the read models are behind the runner's position: their uncommitted writes were lost. */
export interface ReadModelLoss {
  /** When the first loss of this run happened (ISO 8601). */
  since: string;
  error: string;
  /** The storage is full (the loss was a StorageFullError). */
  storageFull: boolean;
}

/**
 * Hands a stored event to a projection that handles its type. The one place a stored event
 * becomes a projection's own event type: the log holds what the command handlers appended for
 * that type, brought to the type's current shape by its upcaster (contracts/upcasters.ts), and
 * defineProjection checked `handles` against the projection's event union. The runner calls it
 * only for types in `handles` (byType, resume); tests drive projections by it too.
 */
export function applyStored(projection: Projection, event: StoredEvent, documents: DocumentStore): Promise<void> {
  // `never` is what a projection of any union takes (Projection's default): see above.
  // eslint-disable-next-line no-restricted-syntax -- the one cast from a stored event (see above)
  return projection.apply(EVENT_UPCASTING.event(event) as never, documents);
}

/**
 * Folds the log into the read models (this file), with the checkpoints saved beside them
 * (runner/checkpoints.ts), the parked projections and their operators' control
 * (runner/parked.ts), and the read-your-writes waits (runner/waits.ts).
 *
 * Every projection keeps its own checkpoint: an event at or
 * below it is skipped (at-least-once delivery made idempotent). A handler that throws parks its
 * projection at that event (checkpoint just before it, nothing applied after it) while the
 * others go on; an operator's retry or skip, recorded in the log's `projections` stream
 * (projections/control-events.ts), resumes it, and so does a restart (it starts from the
 * checkpoint, so the event is tried again). A skip names the event's position and lets the
 * projection pass over that event only; a replay tries a skipped event again and passes over it
 * only if it still fails. DependencyUnavailableError is not a failure of the event: the batch is
 * retried later and nothing parks.
 *
 * Read-your-writes waits (waitFor) follow the log position the runner has handled, not the
 * parked projections: a command still answers while one read model is parked, and /health
 * reports that read model as stale.
 *
 * Servers of one deployment on a bus whose groups share their events (EventBus.sharedGroups:
 * Kafka, one partition) share the read models, and one runner at a time folds: the others'
 * waits follow the position the folding one saves with the checkpoints (runner/waits.ts), and a
 * runner given the events at a rebalance reads the checkpoints again first (assigned), so each
 * event is applied once across them and none is lost when one stops or dies.
 *
 * A checkpoint never passes what its read model kept. A batch that fails puts the checkpoints
 * back as they were before it; a store that loses its uncommitted writes (SQLite after a commit
 * the disk refused: DocumentStore.watchCommits) puts them back as its last commit holds them, and
 * the runner folds the events since from the log again: before its next batch, and on a timer
 * of its own meanwhile (with pauses up to REFOLD_MAX_MS), so the read models catch up once the
 * storage takes writes again, with no restart and no new event needed.
 */
export class ProjectionRunner implements ReadModelProgress {
  private readonly checkpoints = new Map<string, number>();
  private readonly byType = new Map<string, Projection[]>();
  private readonly byName = new Map<string, Projection>();
  private readonly parked = new ParkedProjections();
  private position = 0;
  /** Each projection's checkpoint when this runner started, and what it has applied since. */
  private readonly resumedFrom = new Map<string, number>();
  private readonly applied = new Map<string, { applied: number; firstApplied: number | null }>();
  private subscription: Subscription | null = null;
  private readonly waits: ReadYourWritesWaits;
  /** Other processes' runners may fold into the same read models (EventBus.sharedGroups). */
  private readonly shared: boolean;
  /** A read of the shared position failed, and none has answered since: logged once. */
  private sharedReadFailing = false;
  private readonly afterBatch: ((events: StoredEvent[]) => Promise<void> | void)[] = [];
  /** Projections that applied or parked on an event of the batch being folded: their checkpoints are saved with it. */
  private readonly touched = new Set<string>();
  /** Every projection's name, as the floor names them. */
  private readonly names: string[];
  /** The state the store's last commit holds, and the state handed to it since (in its open transaction). */
  private committedState: FoldedState | null = null;
  private handedState: FoldedState | null = null;
  /** Losses of uncommitted writes so far: a batch that failed with one has nothing more to put back. */
  private losses = 0;
  /** Set while the read models lack events at or below `position` (their writes were lost). */
  private loss: ReadModelLoss | null = null;
  /** The events lost were folded again since the last loss: the next commit keeps them. */
  private refolded = false;
  private refoldTimer: NodeJS.Timeout | null = null;
  private refoldDelayMs = REFOLD_FIRST_MS;
  private stopWatching: (() => void) | null = null;
  /** Folding runs one at a time: the subscription's batches and the refold timer's. */
  private folding: Promise<void> = Promise.resolve();

  constructor(
    private readonly projections: readonly Projection[],
    private readonly bus: EventBus,
    private readonly eventStore: EventStore,
    private readonly documents: DocumentStore,
    private readonly logger: ProjectionLogger,
  ) {
    this.names = projections.map((p) => p.name);
    this.shared = bus.sharedGroups === true && documents.persistent;
    this.waits = new ReadYourWritesWaits(this.shared ? () => this.readShared() : null, (error) => {
      if (!this.sharedReadFailing)
        this.logger.warn({ err: error }, 'could not read how far the shared read models are; writes wait on');
      this.sharedReadFailing = true;
    });
    for (const projection of projections) {
      if (this.byName.has(projection.name)) throw new Error(`Two projections are named ${projection.name}.`);
      if (projection.name === FLOOR_ID)
        throw new Error(`A projection may not be named ${FLOOR_ID}: the checkpoints' floor is.`);
      this.byName.set(projection.name, projection);
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

  /**
   * The log position the read models hold every event up to: this runner's, or, on read models
   * other servers' runners fold too (EventBus.sharedGroups), the furthest any of them saved with
   * the checkpoints (one read of the store), since the one folding may be another server's.
   */
  async handledPosition(): Promise<number> {
    if (!this.shared) return this.position;
    return Math.max(this.position, await loadHandled(this.documents));
  }

  /** What each projection has applied since start: a start that resumes applies nothing at or below its checkpoint. */
  startStats(): ProjectionStartStats[] {
    return this.projections.map((p) => ({
      name: p.name,
      resumedFrom: this.resumedFrom.get(p.name) ?? 0,
      ...(this.applied.get(p.name) ?? { applied: 0, firstApplied: null }),
    }));
  }

  private count(name: string, position: number): void {
    const seen = this.applied.get(name);
    if (seen) seen.applied++;
    else this.applied.set(name, { applied: 1, firstApplied: position });
  }

  /** Each projection's checkpoint and, when parked, where and why. */
  status(): ProjectionStatus[] {
    return this.projections.map((p) => ({
      name: p.name,
      position: this.checkpoints.get(p.name) ?? 0,
      parked: this.parked.get(p.name),
    }));
  }

  async start(): Promise<void> {
    const saved = await loadCheckpoints(this.documents, this.names);
    for (const [name, checkpoint] of saved) {
      this.checkpoints.set(name, checkpoint);
      this.resumedFrom.set(name, checkpoint);
    }
    this.applied.clear();
    this.committedState = this.handedState = this.foldedState();
    this.stopWatching ??=
      this.documents.watchCommits?.({ committed: () => this.committed(), lost: (error) => this.lost(error) }) ?? null;
    await this.parked.loadSkips(this.eventStore);
    const from = Math.min(...this.checkpoints.values(), Number.MAX_SAFE_INTEGER);
    this.position = from === Number.MAX_SAFE_INTEGER ? 0 : from;
    this.subscription = await this.bus.subscribe(GROUP, this.position, (batch) => this.handle(batch), {
      assigned: () => this.assigned(),
    });
    this.waits.start();
  }

  private async readShared(): Promise<number> {
    const position = await loadHandled(this.documents);
    this.sharedReadFailing = false;
    return position;
  }

  /**
   * This runner is given the group's events (at its start, or at a rebalance after another
   * server's runner stopped or died): the other may have folded events since this one last did.
   * So the checkpoints are read again from the store, and the log up to the position the store's
   * read models have passed is folded for the projections below it (one parked on the other
   * server tries its event again, as at a restart); the group's events after it follow.
   */
  private async assigned(): Promise<void> {
    await this.exclusively(async () => {
      const [saved, handled] = await Promise.all([
        loadCheckpoints(this.documents, this.names),
        this.documents.persistent ? loadHandled(this.documents) : 0,
      ]);
      for (const [name, checkpoint] of saved)
        this.checkpoints.set(name, Math.max(this.checkpoints.get(name) ?? 0, checkpoint));
      await this.foldLog(handled);
      this.position = Math.max(this.position, handled);
      this.waits.release(this.position);
    });
  }

  private foldedState(): FoldedState {
    return { checkpoints: new Map(this.checkpoints), parked: this.parked.snapshot() };
  }

  private restore(state: FoldedState): void {
    this.checkpoints.clear();
    for (const [name, position] of state.checkpoints) this.checkpoints.set(name, position);
    this.parked.restore(state.parked);
  }

  /** The store committed everything handed to it. */
  private committed(): void {
    this.committedState = this.handedState;
    if (this.loss && this.refolded) {
      this.logger.warn(
        { since: this.loss.since },
        'the read models are saved again: the writes lost since are folded again and kept',
      );
      this.loss = null;
      this.refoldDelayMs = REFOLD_FIRST_MS;
    }
  }

  /**
   * The store lost what it had not committed: the checkpoints go back to its last commit, and
   * the events since are folded again from the log (before the next batch, or by the timer).
   */
  private lost(error: Error): void {
    this.losses++;
    this.refolded = false;
    const state = this.committedState ?? this.foldedState();
    this.restore(state);
    this.handedState = state;
    if (!this.loss) {
      this.loss = {
        since: new Date().toISOString(),
        error: error.message,
        storageFull: error instanceof StorageFullError,
      };
      this.logger.error(
        { err: error },
        'the read models could not save their latest writes, which are lost; their checkpoints go back to what was saved, and the events since are folded again from the log once the storage takes writes',
      );
    }
    this.scheduleRefold();
  }

  private scheduleRefold(): void {
    if (this.refoldTimer !== null || this.subscription === null) return;
    this.refoldTimer = setTimeout(() => {
      this.refoldTimer = null;
      void this.exclusively(() => this.refold(this.position)).then(
        () => {
          // Kept once the store commits; a loss meanwhile schedules the next try.
        },
        (error: unknown) => {
          this.refoldDelayMs = Math.min(REFOLD_MAX_MS, this.refoldDelayMs * 2);
          if (!(error instanceof DependencyUnavailableError))
            this.logger.error({ err: error }, 'folding the lost read-model writes again failed; tried again');
          this.scheduleRefold();
        },
      );
    }, this.refoldDelayMs);
    this.refoldTimer.unref();
  }

  /** Why the read models lack events the runner has handled, while they do (a lost commit, a full disk). */
  readModelLoss(): ReadModelLoss | null {
    return this.loss;
  }

  private exclusively(work: () => Promise<void>): Promise<void> {
    const run = this.folding.then(work);
    this.folding = run.catch(() => undefined);
    return run;
  }

  /**
   * Folds the log again from the lowest checkpoint of a projection not parked up to `upTo`,
   * after a loss; ends with a write of the checkpoints even when nothing was to fold, so its
   * commit tells whether the storage takes writes again.
   */
  private async refold(upTo: number): Promise<void> {
    if (!this.loss || this.refolded) return;
    await this.foldLog(upTo);
    // A write even when nothing was to fold: its commit tells whether the storage takes writes again.
    const save = () => this.saveCheckpoints([], this.position);
    if (this.documents.batch) await this.documents.batch(save);
    else await save();
    this.refolded = true;
  }

  /** Folds the log from the lowest checkpoint of a projection not parked up to `upTo`, read from the event store. */
  private async foldLog(upTo: number): Promise<void> {
    const unparked = this.projections
      .filter((p) => !this.parked.has(p.name))
      .map((p) => this.checkpoints.get(p.name) ?? 0);
    let after = Math.min(...unparked, upTo);
    while (after < upTo) {
      const events = (await this.eventStore.readAll(after, RESUME_BATCH)).filter((event) => event.position <= upTo);
      if (events.length === 0) break;
      await this.foldInBatch(events);
      after = events[events.length - 1].position;
    }
  }

  /**
   * Refuses a write (StorageFullError, 507) while the read models cannot save for a full disk:
   * the command appends nothing, rather than an event its writer could not read back.
   */
  refuseWritesWhileFull(): void {
    if (this.loss?.storageFull) throw new StorageFullError('read models');
  }

  /** Folds the events in one batch of the store; a failure puts the checkpoints back as they were before it. */
  private async foldInBatch(events: StoredEvent[]): Promise<void> {
    const before = this.foldedState();
    const losses = this.losses;
    // The batch's documents and the checkpoints that cover them commit together where the store can.
    const fold = () => this.fold(events);
    try {
      if (this.documents.batch) await this.documents.batch(fold);
      else await fold();
    } catch (error) {
      this.touched.clear();
      // After a loss, back to the last commit (earlier than `before`), whatever the fold did since.
      const back = this.losses === losses ? before : (this.committedState ?? before);
      this.restore(back);
      this.handedState = back;
      throw error;
    }
  }

  /** Applies one batch; public so the rebuild CLI and tests can drive a replay directly. */
  async handle(batch: StoredEvent[]): Promise<void> {
    await this.exclusively(() => this.handleNow(batch));
  }

  private async handleNow(batch: StoredEvent[]): Promise<void> {
    // Lost writes first, so the batch's own checkpoints never pass them.
    if (this.loss && batch.length > 0) await this.refold(Math.min(this.position, batch[0].position - 1));
    await this.foldInBatch(batch);
    const last = batch[batch.length - 1]?.position ?? this.position;
    this.position = Math.max(this.position, last);
    for (const listener of this.afterBatch) {
      try {
        await listener(batch);
      } catch (error) {
        this.logger.error({ err: error }, 'after-batch listener failed');
      }
    }
    this.waits.release(this.position);
  }

  /** Applies the events each projection has not yet applied, then saves the checkpoints. */
  private async fold(batch: StoredEvent[]): Promise<void> {
    for (const event of batch) {
      if (event.streamId === PROJECTIONS_CONTROL_STREAM) {
        await this.control(event);
        continue;
      }
      const interested = this.byType.get(event.type);
      if (!interested) continue;
      for (const projection of interested) {
        if (this.parked.has(projection.name)) continue;
        if (event.position <= (this.checkpoints.get(projection.name) ?? 0)) continue;
        await this.applyOrPark(projection, event);
      }
    }
    const last = batch[batch.length - 1]?.position ?? this.position;
    for (const projection of this.projections) {
      if (this.parked.has(projection.name)) continue;
      if ((this.checkpoints.get(projection.name) ?? 0) < last) this.checkpoints.set(projection.name, last);
    }
    const touched = this.projections.filter((p) => this.touched.has(p.name));
    this.touched.clear();
    await this.saveCheckpoints(touched, Math.max(this.position, last));
    // In the store's open transaction now: its commit keeps this state.
    this.handedState = this.foldedState();
  }

  /** Saves the checkpoints of `projections` and the floor under every checkpoint (runner/checkpoints.ts). */
  private async saveCheckpoints(projections: readonly Projection[], handled: number): Promise<void> {
    await saveCheckpoints(
      this.documents,
      this.names,
      this.checkpoints,
      projections.map((p) => p.name),
      handled,
    );
  }

  /** Applies the event; on a failure parks the projection there (answers false) unless an operator skipped it. */
  private async applyOrPark(projection: Projection, event: StoredEvent): Promise<boolean> {
    this.touched.add(projection.name);
    try {
      await applyStored(projection, event, this.documents);
      this.count(projection.name, event.position);
      return true;
    } catch (error) {
      if (error instanceof DependencyUnavailableError) throw error;
      const details = { projection: projection.name, eventType: event.type, position: event.position, err: error };
      if (this.parked.skipped(projection.name, event.position)) {
        this.logger.warn(details, 'projection handler failed on an event an operator skipped; passed over');
        return true;
      }
      this.parked.park(projection.name, event, error);
      this.checkpoints.set(projection.name, event.position - 1);
      this.logger.error(
        details,
        'projection parked: its handler failed on this event, and it applies nothing more until an operator retries or skips it (npm run projections)',
      );
      return false;
    }
  }

  /** An operator's request from the log's control stream: it may resume a parked projection up to the event before it. */
  private async control(event: StoredEvent): Promise<void> {
    const name = this.parked.request(event, this.logger);
    const projection = name === null ? undefined : this.byName.get(name);
    if (projection) await this.parked.resume(projection, event.position - 1, this.resumeContext());
  }

  private resumeContext(): ResumeContext {
    return {
      eventStore: this.eventStore,
      checkpoints: this.checkpoints,
      logger: this.logger,
      applyOrPark: (projection, event) => this.applyOrPark(projection, event),
      touch: (name) => this.touched.add(name),
    };
  }

  /** Resolves once every projection has applied the log up to `position` (read-your-writes). */
  waitFor(position: number, timeoutMs = 10_000): Promise<void> {
    return this.waits.waitFor(position, this.position, timeoutMs);
  }

  /** Waits until the read models have everything the store holds right now. */
  async catchUp(timeoutMs = 60_000): Promise<void> {
    await this.waitFor(await this.eventStore.lastPosition(), timeoutMs);
  }

  /**
   * Drops every read model and checkpoint, so the next start replays the whole log; a projection
   * kept by a rebuild (Projection.keptByRebuild) keeps its collections and its checkpoint.
   */
  async reset(): Promise<void> {
    const kept = this.projections.filter((p) => p.keptByRebuild !== undefined);
    await this.documents.dropAll({ keep: kept.flatMap((p) => p.keptByRebuild ?? []) });
    this.parked.clear();
    for (const projection of this.projections) {
      if (kept.includes(projection)) continue;
      this.checkpoints.set(projection.name, 0);
      this.resumedFrom.set(projection.name, 0);
    }
    // The checkpoints went with the other read models: the kept ones are saved again at once.
    await saveOwnCheckpoints(
      this.documents,
      this.checkpoints,
      kept.map((p) => p.name),
    );
    this.applied.clear();
    this.position = 0;
    this.loss = null;
    this.handedState = this.foldedState();
  }

  /**
   * Saves every projection's own checkpoint, which the floor otherwise stands for: at stop and at
   * the end of a rebuild, so a store at rest holds each projection's own position.
   */
  async saveAllCheckpoints(): Promise<void> {
    await this.saveCheckpoints(this.projections, this.position);
  }

  /**
   * Stops after the batch in hand; a runner that ran saves every checkpoint, so a stopped store's
   * are each projection's own. Not one that shares its read models with other servers' runners:
   * what it holds may be behind what another has saved since (the floor covers every checkpoint).
   */
  async stop(): Promise<void> {
    const running = this.subscription !== null && !this.shared;
    await this.subscription?.stop();
    this.subscription = null;
    this.waits.stop();
    if (this.refoldTimer) clearTimeout(this.refoldTimer);
    this.refoldTimer = null;
    await this.folding;
    this.stopWatching?.();
    this.stopWatching = null;
    if (!running) return;
    try {
      await this.saveAllCheckpoints();
    } catch (error) {
      // Only tidiness is lost: the floor already covers every checkpoint not saved.
      this.logger.error({ err: error }, "could not save the projections' checkpoints at stop");
    }
  }
}
