import t from 'tap';
import type { SitePageFields } from '../../../contracts/platform/fields.js';
import { MemoryDocumentStore } from '../../../infra/document-store/memory.js';
import type { StoredEvent } from '../../../infra/event-store/port.js';
import { applyStored } from '../../../projections/runner.js';
import { pageVersionsProjection } from '../../../projections/page-versioning/versions.js';
import { pageVersions } from '../../../contracts/page-versioning/documents.js';

const page: SitePageFields = {
  site_id: 1,
  slug: 'about',
  title: 'About',
  is_public: true,
  layout: null,
  layout_data: {},
  blocks: [],
};

function stored(
  position: number,
  streamVersion: number,
  type: string,
  data: unknown,
  userId: number | null = 3,
): StoredEvent {
  const at = new Date(Date.UTC(2026, 0, 1, 10, 0, position)).toISOString();
  return { streamId: 'site_page-5', streamVersion, position, type, data, metadata: { userId, at } };
}

async function applyAll(documents: MemoryDocumentStore, events: StoredEvent[]): Promise<void> {
  for (const event of events) await applyStored(pageVersionsProjection, event, documents);
}

const history = [
  stored(10, 1, 'SitePageCreated', { id: 5, fields: page }, null),
  stored(12, 2, 'SitePageUpdated', {
    id: 5,
    fields: { ...page, title: 'About us', slug: 'about-us' },
    changed: ['title', 'slug'],
  }),
  stored(15, 3, 'SitePageReverted', { id: 5, fields: page, reverted_to_version_id: 10, summary: 'Back' }, 2),
];

t.test('create, update and revert each make a row keyed by the event position', async (t) => {
  const documents = new MemoryDocumentStore();
  await applyAll(documents, history);
  const rows = await pageVersions(documents).find({}, { sort: { _id: 1 } });
  t.same(rows, [
    {
      _id: 10,
      id: 10,
      resource_id: 5,
      resource_type: 'site_page',
      stream_version: 1,
      title: 'About',
      slug: 'about',
      operation: 'create',
      editor_id: null,
      summary: null,
      saved_at: '2026-01-01T10:00:10.000Z',
    },
    {
      _id: 12,
      id: 12,
      resource_id: 5,
      resource_type: 'site_page',
      stream_version: 2,
      title: 'About us',
      slug: 'about-us',
      operation: 'update',
      editor_id: 3,
      summary: null,
      saved_at: '2026-01-01T10:00:12.000Z',
    },
    {
      _id: 15,
      id: 15,
      resource_id: 5,
      resource_type: 'site_page',
      stream_version: 3,
      title: 'About',
      slug: 'about',
      operation: 'revert',
      editor_id: 2,
      summary: 'Back',
      saved_at: '2026-01-01T10:00:15.000Z',
    },
  ]);
});

t.test('applying the same events twice changes nothing', async (t) => {
  const documents = new MemoryDocumentStore();
  await applyAll(documents, history);
  const once = await pageVersions(documents).find({}, { sort: { _id: 1 } });
  await applyAll(documents, history);
  t.same(await pageVersions(documents).find({}, { sort: { _id: 1 } }), once);
});

t.test('deleting a page removes its versions and only its versions', async (t) => {
  const documents = new MemoryDocumentStore();
  await applyAll(documents, [
    ...history,
    { ...stored(20, 1, 'SitePageCreated', { id: 6, fields: { ...page, slug: 'other' } }), streamId: 'site_page-6' },
    stored(21, 4, 'SitePageDeleted', { id: 5 }),
  ]);
  const rows = await pageVersions(documents).find({});
  t.same(
    rows.map((r) => [r.id, r.resource_id]),
    [[20, 6]],
  );
});

t.test('bad data is skipped, never thrown', async (t) => {
  const documents = new MemoryDocumentStore();
  await applyAll(documents, [
    stored(1, 1, 'SitePageCreated', null),
    stored(2, 1, 'SitePageCreated', { id: 'x' }),
    stored(3, 1, 'SitePageUpdated', { id: 7 }),
  ]);
  const rows = await pageVersions(documents).find({});
  t.same(
    rows.map((r) => [r.id, r.title, r.slug]),
    [[3, '', '']],
    'a row without fields still records the version',
  );
});
