/** A projection stopped at an event its handler failed on: it applies nothing after it until retried or skipped. */
export interface ParkedProjection {
  name: string;
  /** Position of the event that failed; the projection's checkpoint is just before it. */
  position: number;
  eventType: string;
  error: string;
  /** When it parked (ISO 8601, wall clock: an operator compares it with the logs). */
  since: string;
}

/** A projection's checkpoint and, when parked, where and why. */
export interface ProjectionStatus {
  name: string;
  /** The last log position this projection has dealt with. */
  position: number;
  parked: ParkedProjection | null;
}

/**
 * What the modules use of the projection runner (projections/runner.ts implements it): importers,
 * workers and routes take it through ModuleRuntime (commands/module-runtime.ts), so none of them
 * imports projections/ for it; the app's Runtime (app/kernel.ts) holds the runner itself.
 */
export interface ReadModelProgress {
  /** The last log position the runner has handled: the read models hold the log up to it. */
  readonly currentPosition: number;
  /** Each projection's checkpoint and, when parked, where and why. */
  status(): ProjectionStatus[];
  /** Waits until the read models have everything the store holds right now. */
  catchUp(timeoutMs?: number): Promise<void>;
}
