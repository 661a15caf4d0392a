import t from 'tap';
import { MemoryDocumentStore } from '../../../infra/document-store/memory.js';
import { blogMeta, blogPosts, POSTS_VERSION_ID, type BlogPostDoc } from '../../../queries/blog/documents.js';
import { postIndex, publishedBy } from '../../../queries/blog/post-index.js';
import { listPosts } from '../../../queries/blog/posts.js';

function post(id: number, status: BlogPostDoc['status'], publishedAt: string | null): BlogPostDoc {
  const created = '2026-01-01T00:00:00.000Z';
  return {
    _id: id, id, title: `Post ${id}`, slug: `post-${id}`, excerpt: '', content: '', status, author_id: 1, category_id: null,
    featured_image_asset_id: null, featured_image_url: null, published_at: publishedAt, tags: [], site_ids: [],
    created_at: created, updated_at: created, sort_time: publishedAt ?? '2026-01-01 00:00:00',
    tag_refs: [], tag_slugs: [],
  };
}

t.test('the sorted index is reused until the posts version moves', async (t) => {
  const documents = new MemoryDocumentStore();
  await blogPosts(documents).putMany([post(1, 'published', '2025-01-01 00:00:00'), post(2, 'draft', null), post(3, 'published', '2027-01-01 00:00:00')]);
  await blogMeta(documents).put({ _id: POSTS_VERSION_ID, version: 3 });
  const first = await postIndex(documents);
  t.same(first.all.map((p) => p.id), [3, 2, 1]);
  t.same(first.published.map((p) => p.id), [3, 1]);
  t.equal(await postIndex(documents), first, 'no rebuild without a new version');
  await blogPosts(documents).put(post(4, 'published', '2026-02-01 00:00:00'));
  await blogMeta(documents).put({ _id: POSTS_VERSION_ID, version: 4 });
  const second = await postIndex(documents);
  t.not(second, first);
  t.same(second.published.map((p) => p.id), [3, 4, 1]);
});

t.test('publishedBy drops the scheduled prefix', async (t) => {
  const list = [post(3, 'published', '2027-01-01 00:00:00'), post(4, 'published', '2026-06-01 12:00:00'), post(1, 'published', '2025-01-01 00:00:00')];
  t.same(publishedBy(list, '2026-06-01 12:00:00').map((p) => p.id), [4, 1], 'a post published exactly now is shown');
  t.same(publishedBy(list, '2030-01-01 00:00:00').map((p) => p.id), [3, 4, 1]);
  t.same(publishedBy(list, '2000-01-01 00:00:00').map((p) => p.id), []);
  t.same(publishedBy([], '2026-01-01 00:00:00'), []);
});

t.test('listPosts pages over the filtered index', async (t) => {
  const documents = new MemoryDocumentStore();
  await blogPosts(documents).putMany(Array.from({ length: 25 }, (_, i) => post(i + 1, i % 5 === 0 ? 'draft' : 'published', `2025-01-${String(i + 1).padStart(2, '0')} 00:00:00`)));
  await blogMeta(documents).put({ _id: POSTS_VERSION_ID, version: 1 });
  const page = await listPosts(documents, { status: 'published', notPublishedAfter: '2025-01-20 00:00:00' }, 0, 5);
  t.equal(page.total, 16, 'posts 1..20 minus the drafts 1, 6, 11, 16');
  t.same(page.posts.map((p) => p.id), [20, 19, 18, 17, 15]);
});

t.test('a text search over a large blog gives other work turns, and finds what a plain filter finds', async (t) => {
  const documents = new MemoryDocumentStore();
  const count = 5_000;
  await blogPosts(documents).putMany(
    Array.from({ length: count }, (_, i) => ({ ...post(i + 1, 'published', '2025-01-01 00:00:00'), content: i % 7 === 0 ? `<p>A harbour MAP, number ${i}</p>` : '<p>Nothing</p>' })),
  );
  await blogMeta(documents).put({ _id: POSTS_VERSION_ID, version: 1 });
  let turnsTaken = 0;
  let searching = true;
  const otherWork = (): void => {
    if (!searching) return;
    turnsTaken += 1;
    setImmediate(otherWork);
  };
  setImmediate(otherWork);
  const page = await listPosts(documents, { search: 'harbour map' }, 0, 3);
  searching = false;
  t.ok(turnsTaken >= 2, `other work ran ${turnsTaken} times while the search went on`);
  t.equal(page.total, Math.ceil(count / 7), 'every seventh post, case aside');
  t.same(page.posts.map((p) => p.id), [4999, 4992, 4985], 'newest first (same time: higher id first)');
});
