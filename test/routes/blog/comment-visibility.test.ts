import t from 'tap';
import { FixedClock } from '../../../infra/clock/port.js';
import { buildTestApp, json, keyFor, ROLE_USERS } from '../../helper.js';

const post = (id: number, status: string, publishedAt: string | null) => ({
  id,
  title: `Post ${id}`,
  slug: `post-${id}`,
  content: '<p>x</p>',
  status,
  author_id: 1,
  published_at: publishedAt,
});
const comment = (id: number, postId: number) => ({
  id,
  post_id: postId,
  author_name: 'Bo',
  author_email: 'bo@example.org',
  body: `On ${postId}`,
  status: 'approved',
});

t.test('below Editor, the comments of a post the public site does not show are hidden like the post', async (t) => {
  const clock = new FixedClock(new Date('2026-03-01T12:00:00Z'));
  const { app } = await buildTestApp(t, {
    clock,
    fixture: {
      users: ROLE_USERS,
      blog: {
        posts: [
          post(1, 'published', '2026-01-01 00:00:00'),
          post(2, 'published', '2026-01-02 00:00:00'),
          post(3, 'published', '2026-01-03 00:00:00'),
        ],
        comments: [comment(10, 1), comment(20, 2), comment(30, 3)],
      },
    },
  });
  const editor = keyFor('editor');
  const unpublish = await app.inject({
    method: 'PATCH',
    url: `/api/blog_posts/2?${editor}`,
    payload: { status: 'draft' },
  });
  t.equal(unpublish.statusCode, 200, 'post 2 goes back to draft');
  const reschedule = await app.inject({
    method: 'PATCH',
    url: `/api/blog_posts/3?${editor}`,
    payload: { published_at: '2026-06-01 00:00:00' },
  });
  t.equal(reschedule.statusCode, 200, 'post 3 is scheduled');

  const ids = (body: string) => (JSON.parse(body) as { 'o:post_id': number }[]).map((c) => c['o:post_id']);
  for (const [who, query] of [
    ['anonymous', ''],
    ['a researcher key', keyFor('researcher')],
  ] as const) {
    const list = await app.inject({ method: 'GET', url: `/api/blog_comments?${query}` });
    t.same(ids(list.body), [1], `${who}: only the comments of the public post`);
    t.equal(list.headers['platform-total-results'], '1', `${who}: and the total counts only those`);
    for (const postId of [2, 3]) {
      const filtered = await app.inject({ method: 'GET', url: `/api/blog_comments?post_id=${postId}&${query}` });
      t.same(json(filtered), [], `${who}: post_id=${postId} lists nothing`);
    }
    for (const id of [20, 30])
      t.equal(
        (await app.inject({ method: 'GET', url: `/api/blog_comments/${id}?${query}` })).statusCode,
        404,
        `${who}: comment ${id}`,
      );
    t.equal(
      (await app.inject({ method: 'GET', url: `/api/blog_comments/10?${query}` })).statusCode,
      200,
      `${who}: comment 10`,
    );
  }
  const all = await app.inject({ method: 'GET', url: `/api/blog_comments?${editor}` });
  t.same(ids(all.body).sort(), [1, 2, 3], 'an editor sees them all');

  clock.advance(200 * 24 * 3600 * 1000);
  const later = await app.inject({ method: 'GET', url: '/api/blog_comments' });
  t.same(ids(later.body).sort(), [1, 3], 'once its publish time has come, the scheduled post shows its comments');
});
