import t from 'tap';
import { importFixture } from '../../../app/import-fixture.js';
import { items, mediaDocs } from '../../../contracts/platform/documents.js';
import { buildTestApp } from '../../helper.js';

/** Items without ids between items with ids, each with media with and without ids: more than one lane's worth. */
const ITEMS = Array.from({ length: 40 }, (_, i) => ({
  ...(i % 3 === 0 ? { id: 1000 - i * 10 } : {}),
  title: `Item ${i}`,
  site_ids: [1],
  media: Array.from({ length: i % 4 }, (_, j) => ({
    ...(j === 1 ? { id: 5000 + i * 10 + j } : {}),
    title: `Scan ${i}.${j}`,
  })),
}));

/** The ids the same fixture took when records were imported one after another: given ids kept, a missing one after the highest so far. */
function idsOneByOne(given: (number | undefined)[]): number[] {
  let last = 0;
  return given.map((id) => {
    if (id === undefined) return ++last;
    last = Math.max(last, id);
    return id;
  });
}

t.test(
  'items and their media are imported side by side, each taking the id it took one by one, each media on its item',
  async (t) => {
    const { runtime } = await buildTestApp(t);
    await importFixture(runtime, { sites: [{ id: 1, slug: 'main', title: 'Main' }], items: ITEMS });
    const itemIds = idsOneByOne(ITEMS.map((item) => item.id));
    const mediaIds = idsOneByOne(ITEMS.flatMap((item) => item.media.map((m) => m.id)));
    const stored = await items(runtime.documents).find({}, { sort: { _id: 1 } });
    t.same(
      stored.map((doc) => [doc.id, doc.title]),
      ITEMS.map((item, i) => [itemIds[i], item.title]).sort((a, b) => (a[0] as number) - (b[0] as number)),
      'every item under the id it took one by one',
    );
    const media = await mediaDocs(runtime.documents).find({});
    let at = 0;
    for (const [i, item] of ITEMS.entries()) {
      const expected = item.media.map(() => mediaIds[at++]);
      const doc = stored.find((d) => d.id === itemIds[i]);
      t.same(
        [...(doc?.media_ids ?? [])].sort((a, b) => a - b),
        [...expected].sort((a, b) => a - b),
        `item ${i} lists its media`,
      );
      for (const [j, id] of expected.entries()) {
        t.match(
          media.find((m) => m.id === id),
          { item_id: itemIds[i], title: item.media[j].title },
        );
      }
    }
    t.equal(media.length, mediaIds.length);
    const allocations = (await runtime.eventStore.readStream('sequence-item')).filter((e) => e.type === 'IdAllocated');
    t.equal(allocations.length, 1, "the items' ids were recorded by one event");
  },
);

t.test('the next item created after an import takes the id after the highest imported', async (t) => {
  const { runtime } = await buildTestApp(t);
  await importFixture(runtime, {
    sites: [{ id: 1, slug: 'main', title: 'Main' }],
    items: [{ id: 7, title: 'Seven' }, { title: 'Eight' }],
  });
  await importFixture(runtime, { items: [{ title: 'Nine' }] });
  t.same(
    (await items(runtime.documents).find({}, { sort: { _id: 1 }, fields: ['title'] })).map((d) => [d._id, d.title]),
    [
      [7, 'Seven'],
      [8, 'Eight'],
      [9, 'Nine'],
    ],
  );
});
