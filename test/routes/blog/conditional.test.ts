import t from 'tap';
import { buildApp } from '../../../app/app.js';
import { blogModule } from '../../../app/modules/blog.js';
import { usersModule } from '../../../app/modules/core.js';
import { platformModule } from '../../../app/modules/platform.js';
import { createRuntime } from '../../../app/runtime.js';
import { FixedClock } from '../../../infra/clock/port.js';
import { json } from '../../helper.js';
import { auth, buildBlogApp, NOW } from './fixture.js';

const EDITOR = auth('editor');

t.test(
  'two editors PATCH a post with the same ETag: one wins, the other is 412 and nothing of it is kept',
  async (t) => {
    const { app } = await buildBlogApp(t);
    const etag = (await app.inject({ url: `/api/blog_posts/1${EDITOR}` })).headers.etag as string;
    t.match(etag, /^"[1-9][0-9]*-/);
    const [a, b] = await Promise.all([
      app.inject({
        method: 'PATCH',
        url: `/api/blog_posts/1${EDITOR}`,
        headers: { 'if-match': etag },
        payload: { title: 'From A' },
      }),
      app.inject({
        method: 'PATCH',
        url: `/api/blog_posts/1${auth('site_admin')}`,
        headers: { 'if-match': etag },
        payload: { excerpt: 'From B' },
      }),
    ]);
    t.same([a.statusCode, b.statusCode].sort(), [200, 412]);
    const [won, lost] = a.statusCode === 200 ? [a, b] : [b, a];
    t.same(Object.keys(json(lost)), ['errors']);
    const legacy = await app.inject({ url: '/api/blog/posts/1' });
    t.equal(
      String(legacy.headers.etag).split('-')[0],
      String(won.headers.etag).split('-')[0],
      'the legacy read names the same version',
    );
    const post = json<Record<string, unknown>>(await app.inject({ url: `/api/blog_posts/1${EDITOR}` }));
    t.same(
      [post['o:title'], post['o:excerpt']],
      [json<Record<string, unknown>>(won)['o:title'], json<Record<string, unknown>>(won)['o:excerpt']],
    );
    t.equal(
      (await app.inject({ url: `/api/blog_posts/1${EDITOR}` })).headers.etag,
      won.headers.etag,
      'the write answered the tag a read gives',
    );
    const deleted = await app.inject({
      method: 'DELETE',
      url: `/api/blog_posts/1${EDITOR}`,
      headers: { 'if-match': etag },
    });
    t.equal(deleted.statusCode, 412);
    t.equal((await app.inject({ url: '/api/blog_posts/1' })).statusCode, 200, 'a stale delete deleted nothing');
  },
);

t.test('categories and comments take If-Match too', async (t) => {
  const { app } = await buildBlogApp(t);
  const made = await app.inject({ method: 'POST', url: `/api/blog_categories${EDITOR}`, payload: { name: 'Fresh' } });
  t.match(made.headers.etag, /^"1-/, 'a create answers its ETag');
  const madePost = await app.inject({
    method: 'POST',
    url: `/api/blog_posts${EDITOR}`,
    payload: { title: 'Fresh post' },
  });
  t.match(madePost.headers.etag, /^"1-/);
  const category = (await app.inject({ url: '/api/blog_categories/1' })).headers.etag as string;
  t.equal(
    (
      await app.inject({
        method: 'PATCH',
        url: `/api/blog_categories/1${EDITOR}`,
        headers: { 'if-match': category },
        payload: { name: 'Updates' },
      })
    ).statusCode,
    200,
  );
  t.equal(
    (
      await app.inject({
        method: 'PATCH',
        url: `/api/blog_categories/1${EDITOR}`,
        headers: { 'if-match': category },
        payload: { name: 'Lost' },
      })
    ).statusCode,
    412,
  );
  t.equal(
    (await app.inject({ method: 'DELETE', url: `/api/blog_categories/1${EDITOR}`, headers: { 'if-match': category } }))
      .statusCode,
    412,
  );
  t.equal(json<Record<string, unknown>>(await app.inject({ url: '/api/blog_categories/1' }))['o:name'], 'Updates');

  const comment = (await app.inject({ url: `/api/blog_comments/2${EDITOR}` })).headers.etag as string;
  t.equal(
    (
      await app.inject({
        method: 'PATCH',
        url: `/api/blog_comments/2${EDITOR}`,
        headers: { 'if-match': comment },
        payload: { status: 'approved' },
      })
    ).statusCode,
    200,
  );
  t.equal(
    (
      await app.inject({
        method: 'PATCH',
        url: `/api/blog_comments/2${EDITOR}`,
        headers: { 'if-match': comment },
        payload: { status: 'spam' },
      })
    ).statusCode,
    412,
  );
  t.equal(
    (await app.inject({ method: 'DELETE', url: `/api/blog_comments/2${EDITOR}`, headers: { 'if-match': comment } }))
      .statusCode,
    412,
  );
  t.equal((await app.inject({ url: '/api/blog_comments/2' })).statusCode, 200, 'approved, and not deleted');
});

t.test(
  'the post list: 304 while unchanged, per viewer, and 200 after a write by another runtime on the same DATA_DIR',
  async (t) => {
    const { app, config } = await buildBlogApp(t);
    const first = await app.inject({ url: '/api/blog_posts' });
    const etag = first.headers.etag as string;
    t.match(etag, /^W\/"/);
    t.equal(first.headers['cache-control'], 'public, max-age=0, must-revalidate');
    const unchanged = await app.inject({ url: '/api/blog_posts', headers: { 'if-none-match': etag } });
    t.equal(unchanged.statusCode, 304);
    t.equal(unchanged.body, '');
    t.equal(unchanged.headers['platform-total-results'], first.headers['platform-total-results']);
    const editor = await app.inject({ url: `/api/blog_posts${EDITOR}`, headers: { 'if-none-match': etag } });
    t.equal(editor.statusCode, 200, "an editor's list is not the anonymous one");

    const other = await createRuntime(config, {
      modules: [usersModule, platformModule, blogModule],
      clock: new FixedClock(NOW),
    });
    const otherApp = await buildApp(other);
    t.teardown(async () => {
      await otherApp.close();
      await other.close();
    });
    const created = await otherApp.inject({
      method: 'POST',
      url: `/api/blog_posts${EDITOR}`,
      payload: { title: 'From the other runtime', status: 'published' },
    });
    t.equal(created.statusCode, 201);
    // The other runtime commits its read models within its commit interval.
    const deadline = Date.now() + 10_000;
    let status = 304;
    while (status === 304 && Date.now() < deadline) {
      status = (await app.inject({ url: '/api/blog_posts', headers: { 'if-none-match': etag } })).statusCode;
      if (status === 304) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    t.equal(status, 200, 'the changed list is answered whole');
  },
);

t.test('a session viewer gets private answers that vary by Cookie', async (t) => {
  const { app } = await buildBlogApp(t);
  const login = await app.inject({
    method: 'POST',
    url: '/login',
    payload: { email: 'editor@example.org', password: 'editor-pass' },
  });
  const cookie = String(login.headers['set-cookie']).split(';')[0];
  const res = await app.inject({ url: '/api/blog_posts/1', headers: { cookie } });
  t.equal(res.headers['cache-control'], 'private, no-cache');
  t.match(res.headers.vary, /Cookie/);
  const anonymous = await app.inject({
    url: '/api/blog_posts/1',
    headers: { 'if-none-match': res.headers.etag as string },
  });
  t.equal(anonymous.statusCode, 200, "the editor's tag does not match the anonymous answer");
  t.equal(
    (await app.inject({ url: '/api/blog_posts/1', headers: { cookie, 'if-none-match': res.headers.etag as string } }))
      .statusCode,
    304,
  );
});
