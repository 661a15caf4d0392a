import type { Collection, Document } from '../../infra/document-store/port.js';

/**
 * The numeric `_id`s of a collection in ascending pages of at most `size`, each read alone, so a
 * caller can let requests run between pages. Each page is a search of an id range: a sort of the
 * whole remainder by `_id` (the port's type order, which SQLite cannot take from its key index)
 * read every remaining row again for each page, quadratic over a large collection. The range
 * widens while pages come back sparse and narrows when one is full, so sparse ids (a fixture's
 * 1 and 1,000,000) cost a few empty searches and dense ones pages of `size`.
 *
 * Documents added after the last id was read are not listed (their own events speak for them);
 * documents removed meanwhile are simply not found.
 */
export async function* idPages<T extends Document & { _id: number }>(
  collection: Collection<T>,
  size: number,
): AsyncGenerator<number[]> {
  const [first] = await collection.find({}, { sort: { _id: 1 }, limit: 1, fields: ['_id'] });
  const [last] = await collection.find({}, { sort: { _id: -1 }, limit: 1, fields: ['_id'] });
  if (!first || !last) return;
  let after = first._id - 1;
  let width = size;
  while (after < last._id) {
    const upTo = Math.min(after + width, last._id);
    const page = await collection.find(
      { _id: { $gt: after, $lte: upTo } },
      { sort: { _id: 1 }, limit: size, fields: ['_id'] },
    );
    const ids = page.map((doc) => doc._id);
    if (ids.length > 0) yield ids;
    if (ids.length === size) {
      // Full: the range held more; go on from the last id read with a narrower one.
      after = ids[ids.length - 1];
      width = Math.max(size, Math.floor(width / 2));
    } else {
      after = upTo;
      if (ids.length < size / 2) width *= 2;
    }
  }
}
