import t from 'tap';
import { MemoryDocumentStore } from '../../../infra/document-store/memory.js';
import type { StoredEvent } from '../../../infra/event-store/port.js';
import { applyStored } from '../../../projections/runner.js';
import { chatbotIndexOutboxProjection } from '../../../projections/chatbot/index-outbox.js';
import { indexOutbox } from '../../../contracts/chatbot/documents.js';
import { items } from '../../../contracts/platform/documents.js';

const event = (position: number, type: string, data: unknown): StoredEvent => ({
  streamId: 's',
  streamVersion: 1,
  position,
  type,
  data,
  metadata: { userId: 1, at: '2026-01-01 00:00:00' },
});

t.test('each change marks the resources it may change in the index, at its position', async (t) => {
  const documents = new MemoryDocumentStore();
  await items(documents).put({
    _id: 7,
    id: 7,
    title: 'I',
    description: '',
    is_public: true,
    item_set_ids: [],
    site_ids: [],
    media_ids: [70],
    created_at: '',
    updated_at: '',
    owner_id: null,
  });
  const apply = (position: number, type: string, data: unknown) =>
    applyStored(chatbotIndexOutboxProjection, event(position, type, data), documents);
  await apply(1, 'BlogPostCreated', { id: 3, fields: { status: 'draft' } });
  t.same(await indexOutbox(documents).find({}), [], 'a draft owes the index nothing');
  await apply(2, 'BlogPostCreated', { id: 4, fields: { status: 'published' } });
  await apply(3, 'ItemUpdated', { id: 7, fields: {} });
  await apply(4, 'BlogPostUpdated', { id: 4, fields: {} });
  await apply(5, 'SitePageDeleted', { id: 5 });
  await apply(6, 'SiteCreated', { id: 1, fields: {} });
  const marks = (await indexOutbox(documents).find({}, { sort: { _id: 1 } })).map((m) => [
    m._id,
    m.type,
    m.id,
    m.position,
  ]);
  t.same(
    marks,
    [
      ['blog_post-4', 'blog_post', 4, 4],
      ['item-7', 'item', 7, 3],
      ['media-70', 'media', 70, 3],
      ['site_page-5', 'site_page', 5, 5],
    ],
    'one mark a resource, holding the latest position; an item marks its media',
  );
  t.same(
    chatbotIndexOutboxProjection.handles.includes('SiteCreated'),
    false,
    "only the indexed resources' events are handled",
  );
});
