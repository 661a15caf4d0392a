import t from 'tap';
import type { AssetEvent, AssetFile, AssetFolderEvent } from '../../../contracts/assets/events.js';
import { MemoryDocumentStore } from '../../../infra/document-store/memory.js';
import type { StoredEvent } from '../../../infra/event-store/port.js';
import { applyStored } from '../../../projections/runner.js';
import { assetProjections } from '../../../projections/assets/index.js';
import { ASSET_COLLECTIONS } from '../../../contracts/assets/documents.js';

const file: AssetFile = {
  stored_name: 'a.png',
  filename: 'map.png',
  extension: 'png',
  mime_type: 'image/png',
  size: 70,
  sha256: 'aa',
};
const events: (AssetEvent | AssetFolderEvent)[] = [
  { type: 'AssetFolderCreated', data: { id: 1, title: 'Maps', slug: 'maps', parent_id: null } },
  { type: 'AssetFolderCreated', data: { id: 2, title: 'Scans', slug: 'scans', parent_id: null } },
  { type: 'AssetUploaded', data: { id: 7, file, title: 'Map', alt: '', folder_ids: [1] } },
  {
    type: 'AssetUploaded',
    data: { id: 8, file: { ...file, stored_name: 'b.png' }, title: 'Other', alt: '', folder_ids: [2] },
  },
  { type: 'AssetDetailsChanged', data: { id: 7, alt: 'A map' } },
  {
    type: 'AssetFileReplaced',
    data: { id: 7, file: { ...file, stored_name: 'c.png', sha256: 'cc' }, previous_stored_name: 'a.png' },
  },
  { type: 'AssetUsageRecorded', data: { id: 7, usage_id: 1, context_type: 'page', context_id: 5 } },
  { type: 'AssetUsageRecorded', data: { id: 8, usage_id: 2, context_type: 'page', context_id: 6 } },
  { type: 'AssetFolderRenamed', data: { id: 1, title: 'Old maps', slug: 'old-maps' } },
  { type: 'AssetFolderDeleted', data: { id: 2 } },
  { type: 'AssetRemovedFromFolders', data: { id: 8, folder_ids: [2] } },
  { type: 'AssetUsageCleared', data: { id: 8 } },
  { type: 'AssetDeleted', data: { id: 8, stored_name: 'b.png' } },
];

function stored(list: (AssetEvent | AssetFolderEvent)[]): StoredEvent[] {
  return list.map((event, index) => ({
    streamId: 'any',
    streamVersion: index + 1,
    position: index + 1,
    type: event.type,
    data: event.data,
    metadata: { userId: 3, at: `2026-01-02T03:04:${String(index).padStart(2, '0')}.000Z` },
  }));
}

async function fold(list: StoredEvent[]): Promise<Record<string, unknown[]>> {
  const documents = new MemoryDocumentStore();
  for (const event of list) {
    for (const projection of assetProjections)
      if (projection.handles.includes(event.type)) await applyStored(projection, event, documents);
  }
  const out: Record<string, unknown[]> = {};
  for (const name of Object.values(ASSET_COLLECTIONS))
    out[name] = await documents.collection(name).find({}, { sort: { _id: 1 } });
  return out;
}

t.test('the asset read models', async (t) => {
  const once = await fold(stored(events));
  t.same(once[ASSET_COLLECTIONS.folders], [
    {
      _id: 1,
      id: 1,
      title: 'Old maps',
      slug: 'old-maps',
      parent_id: null,
      created_at: '2026-01-02T03:04:00.000Z',
      updated_at: '2026-01-02T03:04:08.000Z',
      version: 9,
    },
  ]);
  // Its version is its last own event's (the file replaced), not a later usage record's.
  t.match(once[ASSET_COLLECTIONS.assets], [
    {
      id: 7,
      stored_name: 'c.png',
      sha256: 'cc',
      title: 'Map',
      title_sort: 'map',
      alt: 'A map',
      folders: [1],
      version: 6,
    },
  ]);
  t.equal(once[ASSET_COLLECTIONS.assets].length, 1, 'the deleted asset is gone');
  t.match(once[ASSET_COLLECTIONS.usage], [{ id: 1, asset_id: 7, context_type: 'page', context_id: 5, user_id: 3 }]);
  t.equal(once[ASSET_COLLECTIONS.usage].length, 1, "the deleted asset's usage is gone");

  const twice = await fold(stored(events).flatMap((event) => [event, event]));
  t.same(twice, once, 'applying every event twice changes nothing');
});

t.test('deleting a folder unfiles its assets in the read model', async (t) => {
  const result = await fold(stored(events.slice(0, 4).concat([{ type: 'AssetFolderDeleted', data: { id: 1 } }])));
  t.same(
    (result[ASSET_COLLECTIONS.assets] as { id: number; folders: number[] }[]).map((a) => [a.id, a.folders]),
    [
      [7, []],
      [8, [2]],
    ],
  );
});
