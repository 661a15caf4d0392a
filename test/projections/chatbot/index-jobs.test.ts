import t from 'tap';
import { MemoryDocumentStore } from '../../../infra/document-store/memory.js';
import type { StoredEvent } from '../../../infra/event-store/port.js';
import { applyStored } from '../../../projections/runner.js';
import { InProcessJobQueue } from '../../../infra/job-queue/in-process.js';
import { chatbotBlogPosts, type ResourceRef } from '../../../contracts/chatbot/documents.js';
import { chatbotBlogPostsProjection } from '../../../projections/chatbot/blog-posts.js';
import { refsToReindex } from '../../../projections/chatbot/index-jobs.js';
import { items } from '../../../contracts/platform/documents.js';
import { IndexScheduler, INDEX_QUEUE } from '../../../workers/chatbot/index-queue.js';

let position = 0;
const event = (type: string, data: unknown): StoredEvent => ({
  streamId: 's',
  streamVersion: 1,
  position: ++position,
  type,
  data,
  metadata: { userId: 1, at: '2026-01-01 00:00:00' },
});

t.test('which events ask for which resources to be looked at again', async (t) => {
  const documents = new MemoryDocumentStore();
  await items(documents).put({
    _id: 7,
    id: 7,
    title: 'I',
    description: '',
    is_public: true,
    item_set_ids: [],
    site_ids: [],
    media_ids: [70, 71],
    created_at: '',
    updated_at: '',
    owner_id: null,
  });
  const refs = (type: string, data: unknown) => refsToReindex(event(type, data), documents);
  t.same(
    await refs('ItemUpdated', { id: 7, fields: {} }),
    [
      { type: 'item', id: 7 },
      { type: 'media', id: 70 },
      { type: 'media', id: 71 },
    ],
    'an item brings its media',
  );
  t.same(await refs('ItemDeleted', { id: 8 }), [{ type: 'item', id: 8 }]);
  t.same(await refs('MediaCreated', { id: 70, fields: {} }), [{ type: 'media', id: 70 }]);
  t.same(
    await refs('SitePageReverted', { id: 5, fields: {} }),
    [{ type: 'site_page', id: 5 }],
    'a revert is an update',
  );
  t.same(await refs('SitePageDeleted', { id: 5 }), [{ type: 'site_page', id: 5 }]);
  t.same(await refs('BlogPostUpdated', { id: 3, fields: {} }), [{ type: 'blog_post', id: 3 }]);
  t.same(await refs('BlogPostCreated', { id: 4, fields: { status: 'published' } }), [{ type: 'blog_post', id: 4 }]);
  t.same(await refs('BlogPostCreated', { id: 5, fields: { status: 'draft' } }), [], 'a draft has nothing to index yet');
  t.same(await refs('ItemSetUpdated', { id: 7, fields: {} }), [], 'item sets are not indexed resources');
  t.same(await refs('SiteCreated', { id: 1, fields: {} }), []);
  t.same(await refs('ItemUpdated', { id: 'x' }), [], 'bad data is skipped');
  t.same(await refs('ItemUpdated', null), []);
});

t.test('the blog post read model keeps what indexing needs and never throws on bad data', async (t) => {
  const documents = new MemoryDocumentStore();
  await applyStored(
    chatbotBlogPostsProjection,
    event('BlogPostCreated', {
      id: 1,
      fields: {
        title: 'T',
        slug: 's',
        content: 'c',
        status: 'published',
        published_at: '2026-01-01 00:00:00',
        tags: ['a', 3],
        site_ids: [1, 'x'],
      },
    }),
    documents,
  );
  const doc = await chatbotBlogPosts(documents).findOne({ _id: 1 });
  t.match(doc, {
    title: 'T',
    slug: 's',
    excerpt: '',
    content: 'c',
    status: 'published',
    published_at: '2026-01-01 00:00:00',
    tags: ['a'],
    site_ids: [1],
  });
  await applyStored(chatbotBlogPostsProjection, event('BlogPostUpdated', { id: 'bad' }), documents);
  await applyStored(chatbotBlogPostsProjection, event('BlogPostDeleted', { id: 1 }), documents);
  t.equal(await chatbotBlogPosts(documents).count(), 0);
});

t.test(
  'the blog post read model holds only published posts: drafts are left out, and unpublishing removes the copy',
  async (t) => {
    const documents = new MemoryDocumentStore();
    const fields = {
      title: 'T',
      slug: 's',
      content: 'c',
      published_at: '2026-01-01 00:00:00',
      tags: [],
      site_ids: [1],
    };
    await applyStored(
      chatbotBlogPostsProjection,
      event('BlogPostCreated', { id: 1, fields: { ...fields, status: 'draft' } }),
      documents,
    );
    t.equal(await chatbotBlogPosts(documents).count(), 0, 'a draft is not copied');
    await applyStored(
      chatbotBlogPostsProjection,
      event('BlogPostUpdated', { id: 1, fields: { ...fields, status: 'published' } }),
      documents,
    );
    t.match(
      await chatbotBlogPosts(documents).findOne({ _id: 1 }),
      { status: 'published', content: 'c' },
      'publishing copies it whole',
    );
    await applyStored(
      chatbotBlogPostsProjection,
      event('BlogPostUpdated', { id: 1, fields: { ...fields, status: 'pending' } }),
      documents,
    );
    t.equal(await chatbotBlogPosts(documents).findOne({ _id: 1 }), null, 'going back to pending removes it');
  },
);

t.test('repeats collapse while a job waits; a change during a run gets a new job', async (t) => {
  const jobs = new InProcessJobQueue();
  t.teardown(() => jobs.close());
  const scheduler = new IndexScheduler(jobs);
  const ran: ResourceRef[] = [];
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  await scheduler.enqueue({ type: 'item', id: 1 });
  await scheduler.enqueue({ type: 'item', id: 1 });
  await scheduler.enqueue({ type: 'media', id: 1 });
  await jobs.process<ResourceRef, void>(INDEX_QUEUE, async (ref) => {
    scheduler.started(ref);
    ran.push(ref);
    if (ran.length === 1) {
      await scheduler.enqueue({ type: 'item', id: 1 });
      await gate;
    }
  });
  release();
  await jobs.drain(INDEX_QUEUE);
  t.same(ran, [
    { type: 'item', id: 1 },
    { type: 'media', id: 1 },
    { type: 'item', id: 1 },
  ]);
});
