import t from 'tap';
import type { MediaFile } from '../../../contracts/platform/media-files.js';
import { MemoryDocumentStore } from '../../../infra/document-store/memory.js';
import type { StoredEvent } from '../../../infra/event-store/port.js';
import { manifestsProjection } from '../../../projections/iiif/manifests.js';
import { applyStored } from '../../../projections/runner.js';
import { activityDocs, manifestDocs } from '../../../contracts/iiif/documents.js';

/**
 * The IIIF read model, given events then documents: an item's manifest with its image media as
 * canvases (private ones kept, counted apart), its revision moving with every change, and the
 * Change Discovery activities of what an anonymous caller sees, each recorded once.
 */

const photo = (width: number, height: number): MediaFile => ({
  stored_name: `${width}.jpg`,
  source: 'p.jpg',
  extension: 'jpg',
  media_type: 'image/jpeg',
  size: 10,
  sha256: 'a'.repeat(64),
  pixels: { width, height },
});
const text: MediaFile = { ...photo(1, 1), media_type: 'text/plain', extension: 'txt', pixels: null };
const item = (is_public = true, item_set_ids: number[] = []) => ({
  title: 'Chart',
  description: 'Of the coast',
  is_public,
  item_set_ids,
  site_ids: [],
  rights: null,
});
const media = (id: number, is_public = true) => ({ item_id: 1, title: `M${id}`, text: '', is_public });

type Given = { type: string; data: Record<string, unknown> & { id: number } };

function stored(events: Given[]): StoredEvent[] {
  return events.map((event, index) => ({
    streamId: `s-${event.data.id}`,
    streamVersion: 1,
    position: index + 1,
    type: event.type,
    data: event.data,
    metadata: { userId: 3, at: `2026-01-02T03:04:${String(index).padStart(2, '0')}.000Z` },
  }));
}

async function fold(documents: MemoryDocumentStore, events: StoredEvent[]) {
  for (const event of events) await applyStored(manifestsProjection, event, documents);
}

const events = stored([
  { type: 'ItemSetCreated', data: { id: 10, fields: { title: 'Maps', is_public: true, site_ids: [] } } }, // 1
  { type: 'ItemCreated', data: { id: 1, fields: item(true, [10]) } }, // 2
  { type: 'MediaCreated', data: { id: 5, fields: media(5) } }, // 3
  { type: 'MediaFileIngested', data: { id: 5, file: photo(300, 200) } }, // 4: the first public canvas
  { type: 'MediaCreated', data: { id: 6, fields: media(6, false) } }, // 5
  { type: 'MediaFileIngested', data: { id: 6, file: photo(40, 30) } }, // 6: a private canvas
  { type: 'MediaCreated', data: { id: 7, fields: media(7) } }, // 7
  { type: 'MediaFileIngested', data: { id: 7, file: text } }, // 8: not an image, no canvas
  { type: 'MediaUpdated', data: { id: 5, fields: { ...media(5), title: 'Front' }, changed: ['title'] } }, // 9
  { type: 'ItemUpdated', data: { id: 1, fields: item(false, [10]), changed: ['is_public'] } }, // 10
  { type: 'ItemDeleted', data: { id: 1 } }, // 11
]);

t.test('a manifest per item, its canvases, and the activities anonymous callers see', async (t) => {
  const documents = new MemoryDocumentStore();
  await fold(documents, events.slice(0, 9));
  const doc = await manifestDocs(documents).findOne({ _id: 1 });
  t.match(doc, { title: 'Chart', is_public: true, item_set_ids: [10], public_canvases: 1 });
  t.same(
    doc?.canvases.map((c) => [c.media_id, c.title, c.is_public, c.width, c.height]),
    [
      [5, 'Front', true, 300, 200],
      [6, 'M6', false, 40, 30],
    ],
    'image media only, in media order, private ones marked',
  );
  const revision = doc?.revision ?? 0;

  await fold(documents, events.slice(9));
  t.equal(await manifestDocs(documents).findOne({ _id: 1 }), null, 'deleted: no manifest');
  const activities = await activityDocs(documents).find({}, { sort: { _id: 1 } });
  t.same(
    activities.map((a) => [a._id, a.type, a.object_type, a.object_id, a.end_time]),
    [
      [1, 'Create', 'Collection', 10, '2026-01-02T03:04:00.000Z'],
      [2, 'Update', 'Collection', 0, '2026-01-02T03:04:00.000Z'],
      [3, 'Create', 'Manifest', 1, '2026-01-02T03:04:03.000Z'],
      [4, 'Update', 'Collection', 10, '2026-01-02T03:04:03.000Z'],
      [5, 'Update', 'Manifest', 1, '2026-01-02T03:04:08.000Z'],
      [6, 'Delete', 'Manifest', 1, '2026-01-02T03:04:09.000Z'],
      [7, 'Update', 'Collection', 10, '2026-01-02T03:04:09.000Z'],
    ],
    'Create when the first public image comes, Update when its canvas changes, Delete when made private; deleting it then shows nothing new',
  );
  t.ok(revision > 0);

  const replayed = new MemoryDocumentStore();
  await fold(replayed, events);
  await fold(replayed, events);
  t.same(
    await activityDocs(replayed).find({}, { sort: { _id: 1 } }),
    activities,
    'a replay records each activity once',
  );
});
