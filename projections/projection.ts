import type { Collection, Document, DocumentStore } from '../infra/document-store/port.js';
import type { StoredEvent } from '../infra/event-store/port.js';

/** What every event a projection folds has: a type name and its data. */
export interface ProjectedEventShape {
  type: string;
  data: unknown;
}

/** One event of a projection's union as the log stored it: its own type and data, and where and when it was stored. */
export type Projected<E extends ProjectedEventShape> = Omit<StoredEvent, 'type' | 'data'> & E;

/**
 * A read model's fold as the runner drives it: which event types it handles and what each does to
 * its documents. `apply` takes only events of the types in `handles` (the runner sees to it,
 * projections/runner.ts applyStored). It must be idempotent (an event may be delivered twice) and
 * write whole documents or absolute values rather than increments.
 *
 * `Projection` without an event union is a projection of any union, as the runner and the module
 * lists hold them: its `apply` takes `never`, so only applyStored can call it.
 */
export interface Projection<E extends ProjectedEventShape = never> {
  readonly name: string;
  readonly handles: readonly string[];
  readonly apply: (event: Projected<E>, documents: DocumentStore) => Promise<void>;
  /**
   * The collections of a projection whose documents are not only a fold of the log but state
   * about something outside the read models (the chatbot's index outbox: work the vector index
   * is owed). A rebuild keeps them and the projection's checkpoint: replaying would only mark
   * every resource owed again. (`npm run reindex` is what rebuilds the vector index.)
   */
  readonly keptByRebuild?: readonly string[];
}

/**
 * `handles` must name every type of the union, and only those (extra names fail as not
 * assignable to the union). A projection of events named at run time (`string`) is not checked.
 */
type HandlesAll<E extends ProjectedEventShape, H extends readonly string[]> = string extends E['type']
  ? unknown
  : [Exclude<E['type'], H[number]>] extends [never]
    ? unknown
    : { 'handles is missing': Exclude<E['type'], H[number]> };

interface ProjectionBase<E extends ProjectedEventShape, H extends readonly E['type'][]> {
  name: string;
  /** Every type of the event union, and no other. */
  handles: H;
  keptByRebuild?: readonly string[];
}

/**
 * A read model of one document per key (a stream's id, mostly): `evolve` folds one event into
 * the document as it is (null when there is none) and answers the document to keep, null to
 * delete it, or the same document to leave it unwritten. Emmett's `getShortInfo` shape.
 */
export interface DocumentProjectionDefinition<
  E extends ProjectedEventShape,
  H extends readonly E['type'][],
  D extends Document,
> extends ProjectionBase<E, H> {
  collection: (documents: DocumentStore) => Collection<D>;
  /** The key of the document this event changes. */
  documentId: (event: Projected<E>) => D['_id'];
  evolve: (document: D | null, event: Projected<E>) => D | null;
}

/**
 * The escape hatch, for a read model whose events write several documents, several
 * collections, or look other documents up: `handle` writes what it needs.
 */
export interface HandlerProjectionDefinition<
  E extends ProjectedEventShape,
  H extends readonly E['type'][],
> extends ProjectionBase<E, H> {
  handle: (event: Projected<E>, documents: DocumentStore) => Promise<void>;
}

/**
 * Defines a read model of one document per key. The event union is the type of evolve's
 * `event` parameter, declared there once: `handles` is checked against it.
 */
export function defineProjection<
  E extends ProjectedEventShape,
  const H extends readonly E['type'][],
  D extends Document,
>(definition: DocumentProjectionDefinition<E, H, D> & { handles: HandlesAll<E, H> }): Projection<E> {
  const { name, handles, keptByRebuild, collection, documentId, evolve } = definition;
  return {
    name,
    handles,
    keptByRebuild,
    async apply(event, documents) {
      const docs = collection(documents);
      const _id = documentId(event);
      const current = await docs.findOne({ _id });
      const next = evolve(current, event);
      if (next === current) return;
      if (next === null) await docs.deleteOne({ _id });
      else await docs.put(next);
    },
  };
}

/** Defines a read model that writes as it needs (HandlerProjectionDefinition); its event union is `handle`'s parameter's. */
export function defineHandlerProjection<E extends ProjectedEventShape, const H extends readonly E['type'][]>(
  definition: HandlerProjectionDefinition<E, H> & { handles: HandlesAll<E, H> },
): Projection<E> {
  const { name, handles, keptByRebuild, handle } = definition;
  return { name, handles, keptByRebuild, apply: handle };
}
