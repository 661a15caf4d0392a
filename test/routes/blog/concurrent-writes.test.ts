import t, { type Test } from 'tap';
import { json } from '../../helper.js';
import { auth, buildBlogApp } from './fixture.js';

/**
 * Slugs are unique: concurrent creates that would take the same one must not both get it, and a
 * tag named by several posts at once is created once.
 */
t.test('concurrent creates of posts with one new tag make the tag once', async (t) => {
  const { app } = await buildBlogApp(t);
  const creates = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      app.inject({
        method: 'POST',
        url: `/api/blog_posts${auth('editor')}`,
        payload: { title: `Tagged ${i}`, tags: ['Brand New Tag'] },
      }),
    ),
  );
  t.same(
    creates.map((res) => res.statusCode),
    Array(8).fill(201),
  );
  const tags = json<Record<string, unknown>[]>(await app.inject({ url: '/api/blog_tags' })).filter(
    (tag) => tag['o:slug'] === 'brand-new-tag',
  );
  t.equal(tags.length, 1, `one tag: ${JSON.stringify(tags)}`);
});

/** Creates the same body `count` times at once; each must be created, each with its own slug. */
async function sameBodyAtOnce(t: Test, url: string, payload: object, count: number): Promise<void> {
  const { app } = await buildBlogApp(t);
  const creates = await Promise.all(
    Array.from({ length: count }, () => app.inject({ method: 'POST', url: `${url}${auth('editor')}`, payload })),
  );
  t.same(
    creates.map((res) => res.statusCode),
    Array(count).fill(201),
  );
  const slugs = creates.map((res) => json<Record<string, unknown>>(res)['o:slug']);
  t.equal(new Set(slugs).size, count, `distinct slugs: ${slugs.join(', ')}`);
}

t.test('concurrent creates with one title get distinct slugs', (t) =>
  sameBodyAtOnce(t, '/api/blog_posts', { title: 'Same Title' }, 8),
);

t.test('concurrent creates of categories with one name get distinct slugs', (t) =>
  sameBodyAtOnce(t, '/api/blog_categories', { name: 'Same Name' }, 6),
);

t.test('concurrent updates to one new slug: one takes it, the others are refused', async (t) => {
  const { app } = await buildBlogApp(t);
  const ids = await Promise.all(
    Array.from(
      { length: 4 },
      async (_, i) =>
        json<Record<string, unknown>>(
          await app.inject({
            method: 'POST',
            url: `/api/blog_posts${auth('editor')}`,
            payload: { title: `Renamed ${i}` },
          }),
        )['o:id'],
    ),
  );
  const updates = await Promise.all(
    ids.map((id) =>
      app.inject({
        method: 'PATCH',
        url: `/api/blog_posts/${String(id)}${auth('editor')}`,
        payload: { slug: 'wanted-slug' },
      }),
    ),
  );
  t.same(updates.map((res) => res.statusCode).sort(), [200, 422, 422, 422]);
});

t.test('a slug given outright and the same slug reached by a suffix are claimed in turn', async (t) => {
  const { app } = await buildBlogApp(t);
  for (let round = 0; round < 5; round++) {
    const title = `Corner ${round}`;
    const payloads = [{ title }, { title }, { title: `Other ${round}`, slug: `corner-${round}-2` }];
    const creates = await Promise.all(
      payloads.map((payload) => app.inject({ method: 'POST', url: `/api/blog_posts${auth('editor')}`, payload })),
    );
    const slugs = creates
      .filter((res) => res.statusCode === 201)
      .map((res) => json<Record<string, unknown>>(res)['o:slug']);
    t.equal(new Set(slugs).size, slugs.length, `no slug twice: ${slugs.join(', ')}`);
    t.ok(
      creates.every((res) => res.statusCode === 201 || res.statusCode === 422),
      'a refused claim is a validation error',
    );
  }
});
