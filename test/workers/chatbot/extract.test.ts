import t from 'tap';
import { MemoryDocumentStore } from '../../../infra/document-store/memory.js';
import { chatbotBlogPosts } from '../../../contracts/chatbot/documents.js';
import { items, mediaDocs, sitePages } from '../../../contracts/platform/documents.js';
import { extractResource, isPublicPost } from '../../../workers/chatbot/extract.js';

const now = new Date('2026-03-01T12:00:00Z');
const tracked = { created_at: '2026-01-01 00:00:00', updated_at: '2026-01-01 00:00:00', owner_id: 1 };

async function store() {
  const documents = new MemoryDocumentStore();
  await items(documents).putMany([
    {
      _id: 1,
      id: 1,
      ...tracked,
      title: 'Map',
      description: '<p>An <b>old</b> map &amp; chart.</p>',
      is_public: true,
      item_set_ids: [10],
      site_ids: [1, 2],
      media_ids: [11, 12],
    },
    {
      _id: 2,
      id: 2,
      ...tracked,
      title: 'Hidden',
      description: 'secret',
      is_public: false,
      item_set_ids: [10],
      site_ids: [1],
      media_ids: [21],
    },
  ]);
  await mediaDocs(documents).putMany([
    { _id: 11, id: 11, ...tracked, item_id: 1, title: 'Scan', text: 'Transcribed <i>text</i>', is_public: true },
    { _id: 12, id: 12, ...tracked, item_id: 1, title: 'Private scan', text: 'x', is_public: false },
    { _id: 21, id: 21, ...tracked, item_id: 2, title: 'Public media of a private item', text: 'y', is_public: true },
  ]);
  await sitePages(documents).putMany([
    {
      _id: 5,
      id: 5,
      ...tracked,
      site_id: 3,
      slug: 'about',
      title: 'About us',
      is_public: true,
      layout: null,
      layout_data: {},
      blocks: [
        { layout: 'html', data: { html: '<h2>Hours</h2><p>Open daily.</p><script>alert(1)</script>' } },
        { layout: 'media', data: { caption: 'A <em>photo</em>', items: [{ alt: 'Front door' }], width: 3 } },
      ],
    },
    {
      _id: 6,
      id: 6,
      ...tracked,
      site_id: 3,
      slug: 'draft',
      title: 'Draft',
      is_public: false,
      layout: null,
      layout_data: {},
      blocks: [],
    },
  ]);
  const post = {
    title: 'News',
    slug: 'big-news',
    excerpt: 'Short',
    content: '<p>Long <b>story</b></p>',
    status: 'published',
    tags: ['maps'],
    site_ids: [1],
  };
  await chatbotBlogPosts(documents).putMany([
    { _id: 7, id: 7, ...post, published_at: '2026-03-01 12:00:00' },
    { _id: 8, id: 8, ...post, published_at: '2026-03-01 12:00:01' },
    { _id: 9, id: 9, ...post, status: 'draft', published_at: '2026-01-01 00:00:00' },
    { _id: 10, id: 10, ...post, published_at: null },
  ]);
  return documents;
}

t.test('items: public ones with stripped description, sets and sites', async (t) => {
  const documents = await store();
  t.same(await extractResource(documents, { type: 'item', id: 1 }, now), {
    resourceType: 'item',
    resourceId: 1,
    title: 'Map',
    path: '/item/1',
    siteIds: [1, 2],
    itemSetIds: [10],
    text: 'An old map & chart.',
  });
  t.equal(await extractResource(documents, { type: 'item', id: 2 }, now), null, 'private item');
  t.equal(await extractResource(documents, { type: 'item', id: 99 }, now), null, 'missing item');
});

t.test("media inherit their item's sets and sites and are public only with their item", async (t) => {
  const documents = await store();
  t.same(await extractResource(documents, { type: 'media', id: 11 }, now), {
    resourceType: 'media',
    resourceId: 11,
    title: 'Scan',
    path: '/media/11',
    siteIds: [1, 2],
    itemSetIds: [10],
    text: 'Transcribed text',
  });
  t.equal(await extractResource(documents, { type: 'media', id: 12 }, now), null, 'private media');
  t.equal(await extractResource(documents, { type: 'media', id: 21 }, now), null, 'public media of a private item');
});

t.test('site pages: every string of every block, HTML and scripts stripped', async (t) => {
  const documents = await store();
  const page = await extractResource(documents, { type: 'site_page', id: 5 }, now);
  t.equal(page?.path, '/page/about');
  t.same(page?.siteIds, [3]);
  t.same(page?.itemSetIds, []);
  t.equal(page?.text, 'Hours\nOpen daily.\nA photo\nFront door');
  t.notMatch(page?.text ?? '', /alert|</);
  t.equal(await extractResource(documents, { type: 'site_page', id: 6 }, now), null, 'private page');
});

t.test('blog posts: published and not in the future only', async (t) => {
  const documents = await store();
  const post = await extractResource(documents, { type: 'blog_post', id: 7 }, now);
  t.equal(post?.path, '/blog/big-news');
  t.equal(post?.text, 'Short\nLong story\nTags: maps');
  t.same(post?.siteIds, [1]);
  t.equal(await extractResource(documents, { type: 'blog_post', id: 8 }, now), null, 'one second in the future');
  t.equal(await extractResource(documents, { type: 'blog_post', id: 9 }, now), null, 'draft');
  t.equal(await extractResource(documents, { type: 'blog_post', id: 10 }, now), null, 'never published');
  t.ok(
    isPublicPost({ status: 'published', published_at: '2026-03-01 12:00:01' }, new Date('2026-03-01T12:00:01.500Z')),
  );
});
