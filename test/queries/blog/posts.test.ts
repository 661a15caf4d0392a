import t from 'tap';
import { MemoryDocumentStore } from '../../../infra/document-store/memory.js';
import type { DocumentStore } from '../../../infra/document-store/port.js';
import { SqliteDocumentStore } from '../../../infra/document-store/sqlite.js';
import { blogCategories, blogPosts, type BlogPostDoc } from '../../../contracts/blog/documents.js';
import { postsHiddenFromPublic } from '../../../queries/blog/hidden-posts.js';
import { listPosts } from '../../../queries/blog/posts.js';

function post(id: number, status: BlogPostDoc['status'], publishedAt: string | null): BlogPostDoc {
  const created = '2026-01-01T00:00:00.000Z';
  return {
    _id: id,
    id,
    title: `Post ${id}`,
    slug: `post-${id}`,
    excerpt: '',
    content: '',
    status,
    author_id: 1,
    category_id: null,
    featured_image_asset_id: null,
    featured_image_url: null,
    published_at: publishedAt,
    tags: [],
    site_ids: [],
    created_at: created,
    updated_at: created,
    sort_time: publishedAt ?? '2026-01-01 00:00:00',
    tag_refs: [],
    tag_slugs: [],
  };
}

const stores: [string, (dir: string) => DocumentStore][] = [
  ['memory', () => new MemoryDocumentStore()],
  ['sqlite', (dir) => new SqliteDocumentStore(`${dir}/read-models.sqlite`)],
];

for (const [name, open] of stores) {
  t.test(`${name}: listPosts pages over the filtered posts`, async (t) => {
    const documents = open(t.testdir());
    t.teardown(() => documents.close());
    await blogPosts(documents).putMany(
      Array.from({ length: 25 }, (_, i) =>
        post(i + 1, i % 5 === 0 ? 'draft' : 'published', `2025-01-${String(i + 1).padStart(2, '0')} 00:00:00`),
      ),
    );
    const page = await listPosts(
      documents,
      { status: 'published', notPublishedAfter: '2025-01-20 00:00:00' },
      { skip: 0, limit: 5 },
    );
    t.equal(page.total, 16, 'posts 1..20 minus the drafts 1, 6, 11, 16');
    t.same(
      page.posts.map((p) => p.id),
      [20, 19, 18, 17, 15],
    );
    const later = await listPosts(
      documents,
      { status: 'published', notPublishedAfter: '2025-01-20 00:00:00' },
      { skip: 15, limit: 5 },
    );
    t.same(
      later.posts.map((p) => p.id),
      [2],
      'the last page',
    );
    t.same(
      [...(await postsHiddenFromPublic(documents, '2025-01-20 00:00:00'))].sort((a, b) => a - b),
      [1, 6, 11, 16, 21, 22, 23, 24, 25],
      'drafts and the posts scheduled after now are hidden',
    );
  });

  t.test(`${name}: every filter of a list`, async (t) => {
    const documents = open(t.testdir());
    t.teardown(() => documents.close());
    await blogCategories(documents).put({
      _id: 7,
      id: 7,
      name: 'Maps',
      slug: 'maps',
      name_sort: 'maps',
      description: '',
      created_at: '',
      updated_at: '',
    });
    await blogPosts(documents).putMany([
      {
        ...post(1, 'published', '2025-01-01 00:00:00'),
        category_id: 7,
        tag_slugs: ['old', 'sea'],
        site_ids: [1, 2],
        author_id: 3,
      },
      { ...post(2, 'published', '2025-01-01 00:00:00'), tag_slugs: ['sea'], site_ids: [2] },
      { ...post(3, 'draft', null), category_id: 7, author_id: 3, title: 'Sea charts' },
      { ...post(4, 'published', null), sort_time: '2024-01-01 00:00:00', content: '<p>The SEA</p>' },
    ]);
    const ids = async (filters: Parameters<typeof listPosts>[1]) =>
      (await listPosts(documents, filters, { skip: 0, limit: 10 })).posts.map((p) => p.id);
    t.same(await ids({}), [3, 2, 1, 4], 'newest first, a tie broken by the higher id');
    t.same(await ids({ categorySlug: 'maps' }), [3, 1]);
    t.same(await ids({ categorySlug: 'none' }), []);
    t.same(await ids({ categoryId: 7, status: 'published' }), [1]);
    t.same(await ids({ tagSlug: 'sea' }), [2, 1]);
    t.same(await ids({ siteId: 1 }), [1]);
    t.same(await ids({ authorId: 3 }), [3, 1]);
    t.same(await ids({ search: 'sea' }), [3, 4], 'title or content, case aside');
    t.same(await ids({ search: 'Se' }), [3, 4], 'a needle under three characters');
    t.same(await ids({ search: '' }), [3, 2, 1, 4], 'an empty search is no filter');
    t.same(await ids({ notPublishedAfter: '2024-06-01 00:00:00' }), [3, 4], 'never published counts as shown');
    t.equal(
      (await listPosts(documents, { tagSlug: 'sea' }, { skip: 1, limit: 1 })).total,
      2,
      'the total counts past the page',
    );
  });

  t.test(`${name}: a text search over a large blog finds what a plain filter finds`, async (t) => {
    const documents = open(t.testdir());
    t.teardown(() => documents.close());
    const count = 5_000;
    await blogPosts(documents).putMany(
      Array.from({ length: count }, (_, i) => ({
        ...post(i + 1, 'published', '2025-01-01 00:00:00'),
        content: i % 7 === 0 ? `<p>A harbour MAP, number ${i}</p>` : '<p>Nothing</p>',
      })),
    );
    const page = await listPosts(documents, { search: 'harbour map' }, { skip: 0, limit: 3 });
    t.equal(page.total, Math.ceil(count / 7), 'every seventh post, case aside');
    t.same(
      page.posts.map((p) => p.id),
      [4999, 4992, 4985],
      'newest first (same time: higher id first)',
    );
  });
}
