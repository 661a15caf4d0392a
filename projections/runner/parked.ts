import type { EventStore, StoredEvent } from '../../infra/event-store/port.js';
import { controlRequest, PROJECTIONS_CONTROL_STREAM } from '../control-events.js';
import type { ParkedProjection } from '../../contracts/read-model-progress.js';
import type { Projection } from '../projection.js';
import type { ProjectionLogger } from './logger.js';
import { errorMessage } from '../../infra/errors.js';

/** Events read per step when a resumed projection catches up from the log. */
export const RESUME_BATCH = 1000;

/** What resuming a parked projection works with: the runner's log, checkpoints and handler call. */
export interface ResumeContext {
  eventStore: EventStore;
  checkpoints: Map<string, number>;
  logger: ProjectionLogger;
  /** Applies the event; on a failure parks the projection there and answers false. */
  applyOrPark(projection: Projection, event: StoredEvent): Promise<boolean>;
  /** The projection's checkpoint is to be saved with the batch. */
  touch(name: string): void;
}

/**
 * The parked projections and the operators' control of them: a retry or skip, recorded in the
 * log's `projections` stream (projections/control-events.ts), resumes one. A skip names the
 * event's position and lets the projection pass over that event only; a replay tries a skipped
 * event again and passes over it only if it still fails.
 */
export class ParkedProjections {
  private readonly parked = new Map<string, ParkedProjection>();
  /** Operator skips: projection name to the positions it may pass over. */
  private readonly skips = new Map<string, Set<number>>();

  has(name: string): boolean {
    return this.parked.has(name);
  }

  get(name: string): ParkedProjection | null {
    return this.parked.get(name) ?? null;
  }

  clear(): void {
    this.parked.clear();
  }

  snapshot(): ReadonlyMap<string, ParkedProjection> {
    return new Map(this.parked);
  }

  restore(state: ReadonlyMap<string, ParkedProjection>): void {
    this.parked.clear();
    for (const [name, parked] of state) this.parked.set(name, parked);
  }

  /** An operator skipped this event for this projection: a failure on it is passed over. */
  skipped(name: string, position: number): boolean {
    return this.skips.get(name)?.has(position) ?? false;
  }

  /** Parks the projection at the event its handler failed on. */
  park(name: string, event: StoredEvent, error: unknown): void {
    this.parked.set(name, {
      name,
      position: event.position,
      eventType: event.type,
      error: errorMessage(error),
      since: new Date().toISOString(),
    });
  }

  /**
   * Skips recorded before now: a replay from the start meets the skipped event before the
   * request that skips it, so the requests are known up front.
   */
  async loadSkips(eventStore: EventStore): Promise<void> {
    for (const event of await eventStore.readStream(PROJECTIONS_CONTROL_STREAM)) {
      const request = controlRequest(event);
      if (request?.type === 'ProjectionSkipRequested') this.addSkip(request.data.projection, request.data.position);
    }
  }

  private addSkip(name: string, position: number): void {
    const set = this.skips.get(name) ?? new Set<number>();
    set.add(position);
    this.skips.set(name, set);
  }

  /**
   * An operator's request from the log's control stream: records a skip, and names the parked
   * projection it resumes (null when it resumes none).
   */
  request(event: StoredEvent, logger: ProjectionLogger): string | null {
    const request = controlRequest(event);
    if (!request) {
      logger.warn({ position: event.position, eventType: event.type }, 'ignored a malformed projection control event');
      return null;
    }
    const name = request.data.projection;
    if (request.type === 'ProjectionSkipRequested') this.addSkip(name, request.data.position);
    // Another process may run projections this one does not have (never parked here): not an error.
    const parked = this.parked.get(name);
    if (!parked) return null;
    if (request.type === 'ProjectionSkipRequested' && request.data.position !== parked.position) {
      logger.warn(
        { projection: name, parkedAt: parked.position, skipRequested: request.data.position },
        'a skip names another event than the one the projection is parked at; it stays parked',
      );
      return null;
    }
    return name;
  }

  /**
   * Catches a parked projection up from its checkpoint to `upTo`, reading the log: the failed
   * event first (tried again, or passed over if skipped). It stays parked until that succeeds,
   * so a batch retried after a DependencyUnavailableError resumes it again from where it is.
   */
  async resume(projection: Projection, upTo: number, context: ResumeContext): Promise<void> {
    const { checkpoints } = context;
    const handles = new Set(projection.handles);
    let after = checkpoints.get(projection.name) ?? 0;
    context.logger.warn({ projection: projection.name, from: after + 1 }, 'resuming a parked projection');
    while (after < upTo) {
      const events = await context.eventStore.readAll(after, RESUME_BATCH);
      if (events.length === 0) break;
      for (const event of events) {
        if (event.position > upTo) break;
        // A failure parks it again, at this event, with this error.
        if (handles.has(event.type) && !(await context.applyOrPark(projection, event))) return;
        after = event.position;
        checkpoints.set(projection.name, after);
      }
      if (events[events.length - 1].position >= upTo) break;
    }
    this.parked.delete(projection.name);
    context.touch(projection.name);
    checkpoints.set(projection.name, Math.max(checkpoints.get(projection.name) ?? 0, upTo));
  }
}
