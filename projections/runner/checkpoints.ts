import type { DocumentStore } from '../../infra/document-store/port.js';

/** Where the projections' checkpoints are kept, beside the read models they describe. */
const CHECKPOINTS = '_checkpoints';

interface CheckpointDoc {
  _id: string;
  position: number;
  [key: string]: unknown;
}

/**
 * The checkpoints' floor, saved with every batch beside the checkpoints of the projections that
 * applied (or parked on) one of its events: the lowest checkpoint of the projections it names.
 * A projection's checkpoint at start is the higher of its own and the floor, when the floor names
 * it; one it does not name (added since) starts from its own. Saving every projection's checkpoint
 * in every batch was a write per projection per create.
 */
export const FLOOR_ID = '*';

interface FloorDoc extends CheckpointDoc {
  projections: string[];
  /**
   * The log position the runner that saved it had handled (ProjectionRunner.currentPosition):
   * every read model has passed it but the parked ones. Servers sharing the read models wait on
   * it for their writes when another server's runner folds them (runner/waits.ts).
   */
  handled?: number;
}

/**
 * Each projection's checkpoint as the store holds it (0 without one): its own, raised to the
 * floor when the floor names it. A store that keeps nothing (in memory) holds none.
 */
export async function loadCheckpoints(
  documents: DocumentStore,
  names: readonly string[],
): Promise<Map<string, number>> {
  const saved = documents.persistent ? await documents.collection<CheckpointDoc>(CHECKPOINTS).find({}) : [];
  const savedByName = new Map(saved.map((c) => [c._id, c.position]));
  const floor = saved.find((c): c is FloorDoc => c._id === FLOOR_ID && Array.isArray(c.projections));
  const checkpoints = new Map<string, number>();
  for (const name of names) {
    const own = savedByName.get(name) ?? 0;
    checkpoints.set(name, floor?.projections.includes(name) ? Math.max(own, floor.position) : own);
  }
  return checkpoints;
}

/**
 * Saves the checkpoints of the projections named in `which` and the floor under the checkpoints
 * of every projection (`names`), with the position handled.
 */
export async function saveCheckpoints(
  documents: DocumentStore,
  names: readonly string[],
  checkpoints: ReadonlyMap<string, number>,
  which: readonly string[],
  handled: number,
): Promise<void> {
  if (!documents.persistent) return;
  const position = Math.min(...names.map((name) => checkpoints.get(name) ?? 0));
  const floor: FloorDoc = { _id: FLOOR_ID, position, projections: [...names], handled };
  await documents
    .collection<CheckpointDoc>(CHECKPOINTS)
    .putMany([...which.map((name) => ({ _id: name, position: checkpoints.get(name) ?? 0 })), floor]);
}

/** Saves the checkpoints of the projections named in `which` only, without the floor (a rebuild's kept projections). */
export async function saveOwnCheckpoints(
  documents: DocumentStore,
  checkpoints: ReadonlyMap<string, number>,
  which: readonly string[],
): Promise<void> {
  if (which.length === 0 || !documents.persistent) return;
  await documents
    .collection<CheckpointDoc>(CHECKPOINTS)
    .putMany(which.map((name) => ({ _id: name, position: checkpoints.get(name) ?? 0 })));
}

/**
 * The log position the read models in the store have passed, as their last saved batch says (0
 * before any); the floor's own position (a lower bound) when it was saved without one.
 */
export async function loadHandled(documents: DocumentStore): Promise<number> {
  const floor = await documents.collection<FloorDoc>(CHECKPOINTS).findOne({ _id: FLOOR_ID });
  if (!floor) return 0;
  return typeof floor.handled === 'number' ? floor.handled : floor.position;
}
