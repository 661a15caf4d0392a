import type { DocumentStore } from '../../infra/document-store/port.js';
import { items, itemSets, mediaDocs } from '../../contracts/platform/documents.js';

/**
 * Ids of private records that a caller below Editor may not see (CONTRACT.md section 6), among
 * those some representations refer to: an item lists only visible media and item sets, and a
 * media of a private item is as private as its item (it would name the item's id).
 */
export interface HiddenIds {
  items: ReadonlySet<number>;
  media: ReadonlySet<number>;
  itemSets: ReadonlySet<number>;
}

/** The records some representations refer to, whose privacy they depend on. */
export interface References {
  items?: readonly number[];
  media?: readonly number[];
  itemSets?: readonly number[];
}

const NONE: ReadonlySet<number> = new Set();
export const NOTHING_HIDDEN: HiddenIds = { items: NONE, media: NONE, itemSets: NONE };

/** Only the referenced records are looked at, so the cost follows what one answer shows. */
export async function hiddenAmong(documents: DocumentStore, references: References): Promise<HiddenIds> {
  const privateOf = async (
    collection: ReturnType<typeof items | typeof mediaDocs | typeof itemSets>,
    ids: readonly number[] | undefined,
  ) => {
    if (!ids || ids.length === 0) return NONE;
    // One look-up by key each: the embedded store answers those from its index, while a
    // filter on other fields ($in with is_public) walks the whole collection.
    const unique = [...new Set(ids)];
    const found = await Promise.all(unique.map((id) => collection.findOne({ _id: id })));
    return new Set(unique.filter((_, i) => found[i] !== null && found[i]?.is_public === false));
  };
  const [hiddenItems, media, sets] = await Promise.all([
    privateOf(items(documents), references.items),
    privateOf(mediaDocs(documents), references.media),
    privateOf(itemSets(documents), references.itemSets),
  ]);
  return { items: hiddenItems, media, itemSets: sets };
}

/** The ids of `ids` that are not hidden; the same array when nothing is. */
export function visibleIds(ids: readonly number[], hidden: ReadonlySet<number>): readonly number[] {
  return hidden.size === 0 ? ids : ids.filter((id) => !hidden.has(id));
}

/** True when any record is hidden. */
export function namesHidden(hidden: HiddenIds): boolean {
  return hidden.items.size > 0 || hidden.media.size > 0 || hidden.itemSets.size > 0;
}
