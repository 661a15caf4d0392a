import t from 'tap';
import { MemoryDocumentStore } from '../../../infra/document-store/memory.js';
import type { StoredEvent } from '../../../infra/event-store/port.js';
import { manifestsProjection } from '../../../projections/iiif/manifests.js';
import { applyStored } from '../../../projections/runner.js';
import { oaiRecords, oaiVersions } from '../../../contracts/oai/documents.js';
import { harvestPage, harvestSize } from '../../../queries/oai/records.js';

/**
 * The OAI-PMH read model, given events then documents: a record per item ever public, a new
 * version (with the change's datestamp and position) per change harvesters see, the version it
 * replaces kept for harvests begun before it; replays change nothing.
 */

const fields = (title: string, is_public = true, item_set_ids: number[] = []) => ({
  title,
  description: '',
  is_public,
  item_set_ids,
  site_ids: [],
  rights: null,
});

type Given =
  | { type: 'ItemCreated' | 'ItemUpdated'; data: { id: number; fields: object } }
  | {
      type: 'ItemDeleted';
      data: { id: number };
    };

function stored(events: Given[]): StoredEvent[] {
  return events.map((event, index) => ({
    streamId: `item-${event.data.id}`,
    streamVersion: 1,
    position: index + 1,
    type: event.type,
    data: event.data,
    metadata: { userId: 3, at: `2026-01-0${1 + Math.floor(index / 2)}T03:04:05.678Z` },
  }));
}

async function fold(documents: MemoryDocumentStore, events: StoredEvent[]) {
  for (const event of events) await applyStored(manifestsProjection, event, documents);
}

t.test('records and their versions', async (t) => {
  const events = stored([
    { type: 'ItemCreated', data: { id: 1, fields: fields('One', true, [10]) } }, // 1, 01-01
    { type: 'ItemCreated', data: { id: 2, fields: fields('Two', false) } }, // 2, 01-01
    { type: 'ItemUpdated', data: { id: 1, fields: fields('One, renamed', true, [10]) } }, // 3, 01-02
    { type: 'ItemUpdated', data: { id: 2, fields: fields('Two, still private', false) } }, // 4, 01-02
    { type: 'ItemDeleted', data: { id: 1 } }, // 5, 01-03
  ]);
  const documents = new MemoryDocumentStore();
  await fold(documents, events);

  t.same(
    await oaiRecords(documents).find({}),
    [
      {
        _id: 1,
        item_id: 1,
        seq: 5,
        datestamp: '2026-01-03T03:04:05Z',
        deleted: true,
        set_ids: [10],
        content: null,
      },
    ],
    'item 1 deleted, its sets kept; item 2 never public: no record',
  );
  const versions = await oaiVersions(documents).find({}, { sort: { seq: 1 } });
  t.same(
    versions.map((v) => [v._id, v.seq, v.superseded, v.datestamp, v.content?.title]),
    [
      ['1:1', 1, 3, '2026-01-01T03:04:05Z', 'One'],
      ['1:3', 3, 5, '2026-01-02T03:04:05Z', 'One, renamed'],
    ],
    'each superseded version, with the position that superseded it',
  );

  const asOf = (snapshot: number) => ({ snapshot, after: 0, from: null, until: null, set: null });
  t.same(
    (await harvestPage(documents, asOf(2), 10)).map((r) => [r.seq, r.content?.title ?? 'deleted']),
    [[1, 'One']],
    'a harvest begun at position 2 reads the first version',
  );
  t.same(
    (await harvestPage(documents, asOf(4), 10)).map((r) => [r.seq, r.content?.title ?? 'deleted']),
    [[3, 'One, renamed']],
  );
  t.same(
    (await harvestPage(documents, asOf(5), 10)).map((r) => r.deleted),
    [true],
  );
  t.equal(await harvestSize(documents, asOf(4)), 1);
  t.equal(
    await harvestSize(documents, { ...asOf(5), from: '2026-01-01T00:00:00Z', until: '2026-01-02T23:59:59Z' }),
    0,
    "from/until on the current version's datestamp",
  );
  t.equal(await harvestSize(documents, { ...asOf(5), set: 10 }), 1, 'a deleted record stays in its sets');

  const replayed = new MemoryDocumentStore();
  await fold(replayed, events);
  await fold(replayed, events);
  t.same(await oaiRecords(replayed).find({}), await oaiRecords(documents).find({}), 'a replay changes nothing');
  t.same(await oaiVersions(replayed).find({}), await oaiVersions(documents).find({}));
});

t.test('a change harvesters do not see makes no version', async (t) => {
  const documents = new MemoryDocumentStore();
  await fold(
    documents,
    stored([
      { type: 'ItemCreated', data: { id: 1, fields: fields('One') } },
      { type: 'ItemUpdated', data: { id: 1, fields: { ...fields('One'), site_ids: [4] } } },
    ]),
  );
  t.equal((await oaiRecords(documents).findOne({ _id: 1 }))?.seq, 1);
  t.equal((await oaiVersions(documents).find({})).length, 0);
});
