import t from 'tap';
import { FixtureRefusedError, importFixture } from '../../../app/import-fixture.js';
import { createRuntime } from '../../../app/runtime.js';
import { testConfig } from '../../test-config.js';
import { blogModule } from '../../../app/modules/blog.js';
import { usersModule } from '../../../app/modules/core.js';
import { platformModule } from '../../../app/modules/platform.js';
import { blogPosts } from '../../../contracts/blog/documents.js';
import { readBlogSettings } from '../../../queries/blog/settings.js';

const users = [{ id: 1, email: 'a@example.org', name: 'Ada', role: 'editor' }];
const base = {
  users,
  sites: [{ id: 1, slug: 'main', title: 'Main' }],
  blog: {
    settings: { comments_enabled: false },
    categories: [{ id: 1, name: 'News', slug: 'news', description: '' }],
    posts: [
      {
        id: 1,
        title: 'Hello',
        slug: 'hello',
        excerpt: '',
        content: '<p>x</p>',
        status: 'published',
        author_id: 1,
        category_id: 1,
        tags: ['maps'],
        site_ids: [1],
        published_at: '2026-01-02 03:04:05',
      },
    ],
    comments: [
      { id: 1, post_id: 1, author_name: 'Bo', author_email: 'bo@example.org', body: 'Nice', status: 'approved' },
    ],
  },
};

async function refusal(runtime: Awaited<ReturnType<typeof createRuntime>>, fixture: object): Promise<string> {
  try {
    await importFixture(runtime, fixture);
  } catch (error) {
    if (error instanceof FixtureRefusedError) return error.problems.map((p) => p.path).join(' ');
    throw error;
  }
  return 'imported';
}

function withBlog(blog: Record<string, unknown>): object {
  return { blog: { ...base.blog, ...blog } };
}

t.test('the blog part of the fixture: imported whole, or refused with the JSON path', async (t) => {
  const runtime = await createRuntime(testConfig(t.testdir()), { modules: [usersModule, platformModule, blogModule] });
  t.teardown(() => runtime.close());

  const post = base.blog.posts[0];
  const cases: [string, object, string][] = [
    [
      'bad status',
      { users, sites: base.sites, ...withBlog({ posts: [{ ...post, status: 'live' }] }) },
      '$.blog.posts[0].status',
    ],
    [
      'bad date',
      { users, sites: base.sites, ...withBlog({ posts: [{ ...post, published_at: 'soon' }] }) },
      '$.blog.posts[0].published_at',
    ],
    [
      'unknown author',
      { sites: base.sites, ...withBlog({ posts: [{ ...post, author_id: 9 }] }) },
      '$.blog.posts[0].author_id',
    ],
    [
      'unknown category',
      { users, sites: base.sites, ...withBlog({ categories: [], posts: [post] }) },
      '$.blog.posts[0].category_id',
    ],
    ['unknown site', { users, ...withBlog({}) }, '$.blog.posts[0].site_ids[0]'],
    [
      'comment on unknown post',
      { users, sites: base.sites, ...withBlog({ comments: [{ ...base.blog.comments[0], post_id: 5 }] }) },
      '$.blog.comments[0].post_id',
    ],
    [
      'bad comment status',
      { users, sites: base.sites, ...withBlog({ comments: [{ ...base.blog.comments[0], status: 'ok' }] }) },
      '$.blog.comments[0].status',
    ],
    [
      'bad comment email',
      { users, sites: base.sites, ...withBlog({ comments: [{ ...base.blog.comments[0], author_email: 'x' }] }) },
      '$.blog.comments[0].author_email',
    ],
    [
      'duplicate post ids',
      { users, sites: base.sites, ...withBlog({ posts: [post, { ...post, slug: 'other' }], comments: [] }) },
      '$.blog.posts[1].id',
    ],
    [
      'duplicate slugs',
      { users, sites: base.sites, ...withBlog({ posts: [post, { ...post, id: 2 }], comments: [] }) },
      '$.blog.posts[1].slug',
    ],
    [
      'settings type',
      { users, sites: base.sites, ...withBlog({ settings: { comments_enabled: 'yes' } }) },
      '$.blog.settings.comments_enabled',
    ],
    [
      'missing title',
      { users, sites: base.sites, ...withBlog({ posts: [{ ...post, title: undefined }] }) },
      '$.blog.posts[0].title',
    ],
  ];
  for (const [name, fixture, path] of cases) {
    t.match(await refusal(runtime, fixture), path, name);
  }
  t.equal(await blogPosts(runtime.documents).count(), 0, 'nothing was imported by refused fixtures');

  t.equal(await refusal(runtime, base), 'imported');
  t.equal((await blogPosts(runtime.documents).findOne({ _id: 1 }))?.title, 'Hello', 'ids are kept');
  t.same(await readBlogSettings(runtime.documents), { comments_enabled: false });

  const again = await refusal(runtime, {
    blog: { categories: base.blog.categories, posts: [{ ...post, slug: 'fresh' }], comments: base.blog.comments },
  });
  t.match(again, '$.blog.categories[0].id', 'an existing category id is refused');
  t.match(again, '$.blog.posts[0].id', 'an existing post id is refused');
  t.match(again, '$.blog.comments[0].id', 'an existing comment id is refused');
});
