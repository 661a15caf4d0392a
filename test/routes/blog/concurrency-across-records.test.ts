import t from 'tap';
import { json } from '../../helper.js';
import { auth, buildBlogApp } from './fixture.js';

/**
 * Rules that span records with 20 requests at once (issue 22): one given slug is given once, a
 * new tag is created once, and a post never keeps a deleted category.
 */
const AT_ONCE = 20;

t.test('20 posts created at once with one given slug: one is created', async (t) => {
  const { app } = await buildBlogApp(t);
  const answers = await Promise.all(
    Array.from({ length: AT_ONCE }, (_, i) =>
      app.inject({
        method: 'POST',
        url: `/api/blog_posts${auth('editor')}`,
        payload: { title: `Post ${i}`, slug: 'one-slug' },
      }),
    ),
  );
  const codes = answers.map((res) => res.statusCode);
  t.equal(codes.filter((c) => c === 201).length, 1, 'one 201');
  t.equal(codes.filter((c) => c === 422).length, AT_ONCE - 1, 'the others 422');
  const refused = answers.find((res) => res.statusCode === 422);
  t.same(refused && json(refused), { errors: { slug: ['Another blog post has this slug.'] } });
  const list = json<{ 'o:slug': string }[]>(
    await app.inject({ url: `/api/blog_posts?per_page=100${auth('editor', '&')}` }),
  );
  t.equal(list.filter((p) => p['o:slug'] === 'one-slug').length, 1, 'the list shows one');
});

t.test('20 categories created at once with one given slug: one is created', async (t) => {
  const { app } = await buildBlogApp(t);
  const answers = await Promise.all(
    Array.from({ length: AT_ONCE }, (_, i) =>
      app.inject({
        method: 'POST',
        url: `/api/blog_categories${auth('editor')}`,
        payload: { name: `Category ${i}`, slug: 'one-slug' },
      }),
    ),
  );
  const codes = answers.map((res) => res.statusCode);
  t.equal(codes.filter((c) => c === 201).length, 1, 'one 201');
  t.equal(codes.filter((c) => c === 422).length, AT_ONCE - 1, 'the others 422');
  const refused = answers.find((res) => res.statusCode === 422);
  t.same(refused && json(refused), { errors: { slug: ['Another blog category has this slug.'] } });
  const list = json<{ 'o:slug': string }[]>(await app.inject({ url: '/api/blog_categories?per_page=100' }));
  t.equal(list.filter((c) => c['o:slug'] === 'one-slug').length, 1, 'the list shows one');
});

t.test('20 posts created at once naming one new tag: the tag is created once, and every post carries it', async (t) => {
  const { app } = await buildBlogApp(t);
  const answers = await Promise.all(
    Array.from({ length: AT_ONCE }, (_, i) =>
      app.inject({
        method: 'POST',
        url: `/api/blog_posts${auth('editor')}`,
        payload: { title: `Tagged ${i}`, tags: [i % 2 ? 'Fresh Tag' : 'fresh tag'] },
      }),
    ),
  );
  t.same(
    answers.map((res) => res.statusCode),
    Array(AT_ONCE).fill(201),
  );
  const tags = json<{ 'o:slug': string; 'o:name': string; 'o:id': number }[]>(
    await app.inject({ url: '/api/blog_tags?per_page=100' }),
  ).filter((tag) => tag['o:slug'] === 'fresh-tag');
  t.equal(tags.length, 1, 'the list shows one');
  for (const res of answers) {
    const id = json<{ 'o:id': number }>(res)['o:id'];
    const post = json<{ 'o:tags': { id: number; name: string; slug: string }[] }>(
      await app.inject({ url: `/api/blog_posts/${id}${auth('editor')}` }),
    );
    t.same(
      post['o:tags'],
      [{ id: tags[0]['o:id'], name: tags[0]['o:name'], slug: 'fresh-tag' }],
      `post ${id} carries the tag`,
    );
  }
});

t.test('a category deleted while 10 posts are filed in it: no post keeps it', async (t) => {
  const { app } = await buildBlogApp(t);
  const category = json<{ 'o:id': number }>(
    await app.inject({
      method: 'POST',
      url: `/api/blog_categories${auth('editor')}`,
      payload: { name: 'Doomed', slug: 'doomed' },
    }),
  )['o:id'];
  const creates = Array.from({ length: 10 }, (_, i) =>
    app.inject({
      method: 'POST',
      url: `/api/blog_posts${auth('editor')}`,
      payload: { title: `Filed ${i}`, category_id: category },
    }),
  );
  const deleted = app.inject({ method: 'DELETE', url: `/api/blog_categories/${category}${auth('editor')}` });
  const answers = await Promise.all(creates);
  t.equal((await deleted).statusCode, 200, 'the delete succeeds');
  for (const res of answers) {
    t.ok(res.statusCode === 201 || res.statusCode === 422, `a create answers 201 or 422 (${res.statusCode})`);
    if (res.statusCode === 422)
      t.same(json(res), { errors: { category_id: [`Blog category ${category} does not exist.`] } });
    if (res.statusCode === 201) {
      const id = json<{ 'o:id': number }>(res)['o:id'];
      const post = json<{ 'o:category_id': number | null }>(
        await app.inject({ url: `/api/blog_posts/${id}${auth('editor')}` }),
      );
      t.equal(post['o:category_id'], null, `post ${id} is uncategorised`);
    }
  }
  const late = await app.inject({
    method: 'POST',
    url: `/api/blog_posts${auth('editor')}`,
    payload: { title: 'Late', category_id: category },
  });
  t.equal(late.statusCode, 422, 'a create after the delete is refused');
});
