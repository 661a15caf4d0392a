import { copyWith } from '../objects/copy-with.js';
import type { StoredEvent } from './port.js';

/**
 * Brings the data of one event type, as the log stored it at any time, to the type's current
 * shape (upcasting), e.g. fills a field added later with the value that was true of the older
 * events. The stored data is of unknown shape: it is checked (a TypeBox schema, or structurally),
 * never cast. Data already in the current shape, or of a shape it does not know, comes back as
 * it is (the same value), so an upcaster may be applied to any event of its type, and twice.
 */
export type Upcaster = (data: unknown) => unknown;

/** One module's upcasters by event type. */
export type Upcasters = Readonly<Record<string, Upcaster>>;

/** The upcasters of every module, applied where a stored event is read as its type. */
export interface EventUpcasting {
  /** The event types that have an upcaster. */
  readonly types: ReadonlySet<string>;
  /** `data`, stored for an event of `type`, in the type's current shape. */
  data(type: string, data: unknown): unknown;
  /** The stored event with its data in its type's current shape: the same object when that changes nothing. */
  event(event: StoredEvent): StoredEvent;
}

/**
 * The one upcasting step of the whole log from each module's upcasters (by module name, for the
 * message of a type given twice: an event type has one upcaster, in one place).
 */
export function eventUpcasting(modules: Readonly<Record<string, Upcasters>>): EventUpcasting {
  const byType = new Map<string, Upcaster>();
  const owner = new Map<string, string>();
  for (const [module, upcasters] of Object.entries(modules)) {
    for (const [type, upcaster] of Object.entries(upcasters)) {
      const other = owner.get(type);
      if (other !== undefined) throw new Error(`Event type ${type} has upcasters in ${other} and ${module}.`);
      owner.set(type, module);
      byType.set(type, upcaster);
    }
  }
  const data = (type: string, stored: unknown): unknown => {
    const upcaster = byType.get(type);
    return upcaster ? upcaster(stored) : stored;
  };
  return {
    types: new Set(byType.keys()),
    data,
    event(event) {
      const current = data(event.type, event.data);
      return current === event.data ? event : copyWith(event, { data: current });
    },
  };
}
