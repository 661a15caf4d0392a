import t from 'tap';
import type { MediaStreamEvent } from '../../../commands/platform/media-file-decider.js';
import type { Derivatives, MediaFile } from '../../../contracts/platform/media-files.js';
import { MemoryDocumentStore } from '../../../infra/document-store/memory.js';
import type { StoredEvent } from '../../../infra/event-store/port.js';
import { applyStored } from '../../../projections/runner.js';
import { platformProjections } from '../../../projections/platform/resources.js';
import { items, mediaDocs } from '../../../contracts/platform/documents.js';

const image: MediaFile = {
  stored_name: 'o.jpg',
  source: 'o.jpg',
  extension: 'jpg',
  media_type: 'image/jpeg',
  size: 10,
  sha256: 'a'.repeat(64),
  pixels: { width: 30, height: 20 },
};
const derivatives: Derivatives = {
  large: { stored_name: 'l.jpg', width: 30, height: 20 },
  medium: { stored_name: 'm.jpg', width: 30, height: 20 },
  square: { stored_name: 's.jpg', width: 20, height: 20 },
  pyramid: { stored_name: 'p.tif', levels: [{ width: 30, height: 20, page: 0 }] },
};
const media = (id: number, is_public = true) => ({ item_id: 100, title: `M${id}`, text: '', is_public });

type Given = MediaStreamEvent | { type: 'ItemCreated' | 'ItemUpdated'; data: { id: number; fields: object } };

async function fold(given: Given[]) {
  const documents = new MemoryDocumentStore();
  const versions = new Map<number, number>();
  for (const [index, event] of given.entries()) {
    const id = event.data.id;
    const version = (versions.get(id) ?? 0) + 1;
    versions.set(id, version);
    const stored: StoredEvent = {
      streamId: `${event.type.startsWith('Item') ? 'item' : 'media'}-${id}`,
      streamVersion: version,
      position: index + 1,
      type: event.type,
      data: event.data,
      metadata: { userId: 3, at: `2026-01-02T03:04:${String(index).padStart(2, '0')}.000Z` },
    };
    for (const projection of platformProjections)
      if (projection.handles.includes(event.type)) await applyStored(projection, stored, documents);
  }
  return documents;
}

const item: Given = {
  type: 'ItemCreated',
  data: { id: 100, fields: { title: 'I', description: '', is_public: true, item_set_ids: [], site_ids: [] } },
};

t.test("a media's file, derivatives and failure fold into its document and its item's files", async (t) => {
  const documents = await fold([
    item,
    { type: 'MediaCreated', data: { id: 2, fields: media(2) } },
    { type: 'MediaFileIngested', data: { id: 2, file: image } },
    { type: 'MediaCreated', data: { id: 1, fields: media(1, false) } },
    { type: 'MediaFileIngested', data: { id: 1, file: { ...image, sha256: 'b'.repeat(64) } } },
    { type: 'MediaCreated', data: { id: 3, fields: media(3) } },
    { type: 'MediaFileIngested', data: { id: 3, file: { ...image, media_type: 'text/plain', pixels: null } } },
    { type: 'MediaCreated', data: { id: 4, fields: media(4) } },
    { type: 'MediaFileIngested', data: { id: 4, file: { ...image, pixels: null } } },
    { type: 'MediaDerivativesMade', data: { id: 2, sha256: image.sha256, derivatives, replaced: [] } },
    { type: 'MediaUpdated', data: { id: 2, fields: { ...media(2), title: 'Renamed' }, changed: ['title'] } },
  ]);
  const two = await mediaDocs(documents).findOne({ _id: 2 });
  t.match(
    two,
    { title: 'Renamed', file: image, derivatives, file_status: 'made', version: 4 },
    'an update keeps the file',
  );
  t.equal((await mediaDocs(documents).findOne({ _id: 1 }))?.file_status, 'pending');
  t.equal((await mediaDocs(documents).findOne({ _id: 3 }))?.file_status, 'none', 'not an image: nothing owed');
  t.equal(
    (await mediaDocs(documents).findOne({ _id: 4 }))?.file_status,
    'failed',
    'an image whose header did not read',
  );
  t.same((await items(documents).findOne({ _id: 100 }))?.files, [
    { id: 1, is_public: false, thumbnails: false },
    { id: 2, is_public: true, thumbnails: true },
    { id: 3, is_public: true, thumbnails: false },
    { id: 4, is_public: true, thumbnails: false },
  ]);
});

t.test('a failure, a delete and an update of the item', async (t) => {
  const documents = await fold([
    item,
    { type: 'MediaCreated', data: { id: 2, fields: media(2) } },
    { type: 'MediaFileIngested', data: { id: 2, file: image } },
    { type: 'MediaDerivativesFailed', data: { id: 2, sha256: image.sha256, reason: 'corrupt' } },
    { type: 'MediaCreated', data: { id: 5, fields: media(5) } },
    { type: 'MediaFileIngested', data: { id: 5, file: image } },
    { type: 'MediaDeleted', data: { id: 5 } },
    { type: 'MediaDerivativesMade', data: { id: 5, sha256: image.sha256, derivatives, replaced: [] } },
    {
      type: 'ItemUpdated',
      data: { id: 100, fields: { title: 'I2', description: '', is_public: true, item_set_ids: [], site_ids: [] } },
    },
  ]);
  t.equal((await mediaDocs(documents).findOne({ _id: 2 }))?.file_status, 'failed');
  t.equal(await mediaDocs(documents).findOne({ _id: 5 }), null, 'a late event of a deleted media writes nothing');
  t.same(
    (await items(documents).findOne({ _id: 100 }))?.files,
    [{ id: 2, is_public: true, thumbnails: false }],
    "the item's update keeps its files",
  );
});
