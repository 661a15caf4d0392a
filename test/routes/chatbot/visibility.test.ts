import t from 'tap';
import { buildTestApp, json } from '../../helper.js';
import { FixedClock } from '../../../infra/clock/port.js';
import { deleteResource, ITEM, MEDIA, SITE_PAGE, updateResource } from '../../../commands/platform/handlers.js';
import { chatbotModule } from '../../../app/modules/chatbot.js';
import { chatbotFixture, indexedKeys, post, settle, writePost, type ChatBody } from './support.js';

const PUBLIC = ['item-100', 'item-101', 'item-102', 'media-1000', 'media-1010', 'site_page-5'];

t.test('only what the public site shows is indexed, and it leaves when it stops being public', async (t) => {
  const clock = new FixedClock(new Date('2026-03-01T12:00:00Z'));
  const { app, runtime } = await buildTestApp(t, { fixture: chatbotFixture, clock, config: { chatbotRateLimit: 0 } });
  await settle(runtime);
  const ctx = runtime.commandContext(null);

  t.test('private items, their media, private media and private pages never appear', async (t) => {
    t.same(await indexedKeys(app), PUBLIC);
    const chat = json<ChatBody>(
      await post(app, 'chat', { question: 'ledger of violin purchases, staff storage codes, restorer notes' }),
    );
    t.notOk(
      chat.sources.some((s) => [103, 1030, 1001, 6].includes(s.resource_id)),
      'no private evidence',
    );
    t.notMatch(chat.answer_html, /ledger|codes|Confidential/i);
  });

  t.test('posts: published and past only; drafts and future posts stay out until their time', async (t) => {
    await writePost(runtime, 1, {
      title: 'Draft about violins',
      slug: 'draft',
      content: 'Unreleased violin news.',
      status: 'draft',
      published_at: null,
    });
    await writePost(runtime, 2, {
      title: 'Violin day',
      slug: 'violin-day',
      content: 'Violin day is coming.',
      status: 'published',
      published_at: '2026-03-01 12:05:00',
    });
    await writePost(runtime, 3, {
      title: 'Old news',
      slug: 'old-news',
      content: 'The violin arrived.',
      status: 'published',
      published_at: '2026-02-01 09:00:00',
    });
    t.same(await indexedKeys(app), [...PUBLIC, 'blog_post-3'].sort());
    clock.advance(4 * 60_000);
    await runtime.module(chatbotModule).checkScheduledPosts();
    await settle(runtime);
    t.notOk((await indexedKeys(app)).includes('blog_post-2'), 'still a minute early');
    clock.advance(60_000);
    await runtime.module(chatbotModule).checkScheduledPosts();
    await settle(runtime);
    t.ok((await indexedKeys(app)).includes('blog_post-2'), 'the scheduled post enters the index when its time comes');
    await writePost(
      runtime,
      3,
      {
        title: 'Old news',
        slug: 'old-news',
        content: 'The violin arrived.',
        status: 'draft',
        published_at: '2026-02-01 09:00:00',
      },
      'BlogPostUpdated',
    );
    t.notOk((await indexedKeys(app)).includes('blog_post-3'), 'unpublished: it leaves');
    await writePost(runtime, 2, null, 'BlogPostDeleted');
    t.notOk((await indexedKeys(app)).includes('blog_post-2'), 'deleted: it leaves');
    await writePost(
      runtime,
      1,
      {
        title: 'Draft about violins',
        slug: 'now-out',
        content: 'Released violin news.',
        status: 'published',
        published_at: '2026-01-01 00:00:00',
      },
      'BlogPostUpdated',
    );
    t.ok((await indexedKeys(app)).includes('blog_post-1'), 'published later: it enters');
  });

  t.test('items, media and pages follow their updates and deletions', async (t) => {
    await updateResource(ctx, { spec: ITEM, id: 100, patch: { is_public: false } });
    await settle(runtime);
    let keys = await indexedKeys(app);
    t.notOk(keys.includes('item-100'), 'item made private leaves');
    t.notOk(keys.includes('media-1000'), 'and its media with it');
    await updateResource(ctx, { spec: ITEM, id: 103, patch: { is_public: true } });
    await settle(runtime);
    keys = await indexedKeys(app);
    t.ok(keys.includes('item-103') && keys.includes('media-1030'), 'item made public enters with its public media');
    t.notOk(keys.includes('media-1001'), 'private media stays out');

    await updateResource(ctx, { spec: ITEM, id: 101, patch: { item_set_ids: [10] } });
    await settle(runtime);
    const inMaps = json<{ results: { resource_id: number }[] }>(
      await post(app, 'search', { query: 'violin photograph', item_set_ids: [10], per_page: 50 }),
    );
    t.ok(
      inMaps.results.some((r) => r.resource_id === 1010),
      "media follow their item's new sets",
    );

    await updateResource(ctx, {
      spec: ITEM,
      id: 102,
      patch: { description: 'Now described as a Venetian spinet with gilded legs.' },
    });
    await settle(runtime);
    const spinet = json<{ results: { resource_id: number; snippet: string }[] }>(
      await post(app, 'search', { query: 'Venetian spinet gilded' }),
    );
    t.equal(spinet.results[0].resource_id, 102);
    t.match(spinet.results[0].snippet, /Venetian spinet/, 'updates replace the chunks');
    t.notOk(
      spinet.results.some((r) => /Flemish/.test(r.snippet)),
      'old chunks are gone',
    );

    await updateResource(ctx, { spec: MEDIA, id: 1010, patch: { is_public: false } });
    await updateResource(ctx, { spec: SITE_PAGE, id: 5, patch: { is_public: false } });
    await settle(runtime);
    keys = await indexedKeys(app);
    t.notOk(keys.includes('media-1010'), 'media made private leaves');
    t.notOk(keys.includes('site_page-5'), 'page made private leaves');
    await updateResource(ctx, { spec: SITE_PAGE, id: 6, patch: { is_public: true } });
    await deleteResource(ctx, { spec: ITEM, id: 101 });
    await settle(runtime);
    keys = await indexedKeys(app);
    t.ok(keys.includes('site_page-6'), 'page made public enters');
    t.notOk(keys.includes('item-101'), 'deleted item leaves');
  });
});

t.test('a restart rebuilds the embedded index from the log without re-embedding', async (t) => {
  const dir = t.testdir();
  const { runtime: first } = await buildTestApp(
    { testdir: () => dir, teardown: () => {} },
    { fixture: chatbotFixture },
  );
  await settle(first);
  const cacheSize = (runtime: typeof first) =>
    (runtime.module(chatbotModule).services.embedder as unknown as { size(): number }).size();
  const cached = cacheSize(first);
  t.ok(cached > 0);
  await first.close();
  const { app, runtime } = await buildTestApp({ testdir: () => dir, teardown: (fn) => t.teardown(fn) });
  await settle(runtime);
  t.same(await indexedKeys(app), PUBLIC);
  t.equal(cacheSize(runtime), cached + 1, 'only the new query vector was added');
});

t.test('posts imported through the blog module are indexed by the same rules', async (t) => {
  const clock = new FixedClock(new Date('2026-03-01T12:00:00Z'));
  const post = (id: number, status: string, published_at: string | null) => ({
    id,
    title: `Post ${id} about violins`,
    slug: `post-${id}`,
    excerpt: '',
    content: `<p>Violin news number ${id}.</p>`,
    status,
    author_id: 1,
    category_id: null,
    tags: [],
    site_ids: [1],
    published_at,
  });
  const fixture = {
    users: [{ id: 1, email: 'admin@example.org', name: 'Ada', role: 'global_admin', password: 'a-long-password' }],
    sites: [{ id: 1, slug: 'main', title: 'Main' }],
    blog: {
      posts: [
        post(1, 'published', '2026-02-01 00:00:00'),
        post(2, 'draft', null),
        post(3, 'published', '2026-03-02 00:00:00'),
        post(4, 'pending', null),
      ],
    },
  };
  const { app, runtime } = await buildTestApp(t, { fixture, clock, config: { chatbotRateLimit: 0 } });
  await settle(runtime);
  t.same(await indexedKeys(app, 'violin news'), ['blog_post-1'], 'only the published, past post');
  clock.advance(24 * 3600_000);
  await runtime.module(chatbotModule).checkScheduledPosts();
  await settle(runtime);
  t.same(
    await indexedKeys(app, 'violin news'),
    ['blog_post-1', 'blog_post-3'],
    'the scheduled post follows when its time comes',
  );
});
