import t from 'tap';
import { buildTestApp, json, keyFor, ROLE_USERS } from '../../helper.js';

const fixture = {
  users: ROLE_USERS,
  sites: [{ id: 1, slug: 'main', title: 'Main site' }],
  items: [
    {
      id: 100,
      title: 'Map of Lisbon',
      site_ids: [1],
      is_public: true,
      media: [
        { id: 1000, title: 'Scan', text: 'public', is_public: true },
        { id: 1001, title: 'Draft scan', text: 'private', is_public: false },
      ],
    },
  ],
};

const EDITOR = keyFor('editor');

t.test(
  'a single resource answers a strong ETag of its version, and If-None-Match a 304 for that viewer only',
  async (t) => {
    const { app } = await buildTestApp(t, { fixture });
    const first = await app.inject({ url: '/api/items/100' });
    t.equal(first.statusCode, 200);
    const etag = first.headers.etag as string;
    t.match(etag, /^"[1-9][0-9]*-[A-Za-z0-9_-]+"$/, 'strong, version first');
    t.equal(first.headers['cache-control'], 'public, max-age=0, must-revalidate');
    t.match(first.headers.vary, /Cookie/);

    const again = await app.inject({ url: '/api/items/100', headers: { 'if-none-match': etag } });
    t.equal(again.statusCode, 304);
    t.equal(again.body, '');
    t.equal(again.headers.etag, etag);

    const listed = await app.inject({ url: '/api/items/100', headers: { 'if-none-match': `"other", ${etag}` } });
    t.equal(listed.statusCode, 304, 'a list of tags naming it');

    // The editor sees the private media too: another body, another tag, never the anonymous one's.
    const editor = await app.inject({ url: `/api/items/100?${EDITOR}`, headers: { 'if-none-match': etag } });
    t.equal(editor.statusCode, 200);
    t.not(editor.headers.etag, etag);
    t.equal(editor.headers['cache-control'], 'private, no-cache');
    const editorAgain = await app.inject({
      url: `/api/items/100?${EDITOR}`,
      headers: { 'if-none-match': editor.headers.etag as string },
    });
    t.equal(editorAgain.statusCode, 304);

    for (const malformed of ['garbage', '"unterminated', 'W/', '""""', ',,,']) {
      const res = await app.inject({ url: '/api/items/100', headers: { 'if-none-match': malformed } });
      t.equal(res.statusCode, 200, `If-None-Match: ${malformed} matches nothing`);
    }
  },
);

t.test(
  'two editors PATCH with the same ETag: one 200 with the new ETag, one 412 with the current one, nothing lost',
  async (t) => {
    const { app } = await buildTestApp(t, { fixture });
    const read = await app.inject({ url: `/api/items/100?${EDITOR}` });
    const etag = read.headers.etag as string;
    const [a, b] = await Promise.all([
      app.inject({
        method: 'PATCH',
        url: `/api/items/100?${EDITOR}`,
        headers: { 'if-match': etag },
        payload: { 'o:title': 'First' },
      }),
      app.inject({
        method: 'PATCH',
        url: `/api/items/100?${keyFor('site_admin')}`,
        headers: { 'if-match': etag },
        payload: { 'o:description': 'Second' },
      }),
    ]);
    const statuses = [a.statusCode, b.statusCode].sort();
    t.same(statuses, [200, 412]);
    const [won, lost] = a.statusCode === 200 ? [a, b] : [b, a];
    t.not(won.headers.etag, etag, 'the write answers the new ETag');
    t.same(json(lost), {
      errors: { error: 'The resource was changed since it was read (If-Match does not match its current ETag).' },
    });
    t.match(lost.headers.etag, /^"[0-9]+"$/);
    t.equal(
      String(lost.headers.etag).slice(1, -1),
      String(won.headers.etag).slice(1).split('-')[0],
      'the 412 names the current version',
    );

    const now = json<Record<string, unknown>>(await app.inject({ url: `/api/items/100?${EDITOR}` }));
    const winner = json<Record<string, unknown>>(won);
    t.equal(now['o:title'], winner['o:title']);
    t.equal(now['o:description'], winner['o:description'], 'the loser changed nothing');

    // The 412's tag, or the winner's, lets the second editor save after all.
    const retried = await app.inject({
      method: 'PATCH',
      url: `/api/items/100?${EDITOR}`,
      headers: { 'if-match': lost.headers.etag as string },
      payload: { 'o:title': 'Third' },
    });
    t.equal(retried.statusCode, 200);
  },
);

t.test(
  'If-Match: *, a current ETag or none proceed; a stale or malformed one is a 412 and changes nothing',
  async (t) => {
    const { app } = await buildTestApp(t, { fixture });
    const etag = (await app.inject({ url: `/api/sites/1?${EDITOR}` })).headers.etag as string;
    const star = await app.inject({
      method: 'PATCH',
      url: `/api/sites/1?${EDITOR}`,
      headers: { 'if-match': '*' },
      payload: { 'o:title': 'Star' },
    });
    t.equal(star.statusCode, 200);
    for (const stale of [etag, `W/${etag}`, 'garbage', '"', '"abc"']) {
      const res = await app.inject({
        method: 'PUT',
        url: `/api/sites/1?${EDITOR}`,
        headers: { 'if-match': stale },
        payload: { 'o:title': 'Lost' },
      });
      t.equal(res.statusCode, 412, `If-Match: ${stale}`);
    }
    const gone = await app.inject({ method: 'DELETE', url: `/api/sites/1?${EDITOR}`, headers: { 'if-match': etag } });
    t.equal(gone.statusCode, 412);
    const site = json<Record<string, unknown>>(await app.inject({ url: '/api/sites/1' }));
    t.equal(site['o:title'], 'Star');

    const none = await app.inject({ method: 'PATCH', url: `/api/sites/1?${EDITOR}`, payload: { 'o:title': 'Plain' } });
    t.equal(none.statusCode, 200);
    const current = none.headers.etag as string;
    t.equal(
      (await app.inject({ url: `/api/sites/1?${EDITOR}` })).headers.etag,
      current,
      'the write answers the tag its read gives',
    );
    const deleted = await app.inject({
      method: 'DELETE',
      url: `/api/sites/1?${EDITOR}`,
      headers: { 'if-match': `"1-x", ${current}` },
    });
    t.equal(deleted.statusCode, 200);
  },
);

t.test('a create answers the ETag its read gives', async (t) => {
  const { app } = await buildTestApp(t, { fixture });
  const created = await app.inject({ method: 'POST', url: `/api/item_sets?${EDITOR}`, payload: { 'o:title': 'Maps' } });
  t.equal(created.statusCode, 201);
  const id = json<Record<string, number>>(created)['o:id'];
  t.match(created.headers.etag, /^"1-/);
  t.equal((await app.inject({ url: `/api/item_sets/${id}?${EDITOR}` })).headers.etag, created.headers.etag);
});

t.test('a stale If-Match on an item deletes none of its media', async (t) => {
  const { app } = await buildTestApp(t, { fixture });
  const res = await app.inject({
    method: 'DELETE',
    url: `/api/items/100?${EDITOR}`,
    headers: { 'if-match': '"99-x"' },
  });
  t.equal(res.statusCode, 412);
  t.equal((await app.inject({ url: '/api/media/1000' })).statusCode, 200);
});

t.test('a list answers a weak ETag: 304 while unchanged, 200 after a write that changes it', async (t) => {
  const { app } = await buildTestApp(t, { fixture });
  const first = await app.inject({ url: '/api/media' });
  const etag = first.headers.etag as string;
  t.match(etag, /^W\/"/);
  t.equal((await app.inject({ url: '/api/media', headers: { 'if-none-match': etag } })).statusCode, 304);
  await app.inject({ method: 'PATCH', url: `/api/media/1000?${EDITOR}`, payload: { 'o:title': 'Renamed' } });
  const after = await app.inject({ url: '/api/media', headers: { 'if-none-match': etag } });
  t.equal(after.statusCode, 200);
  t.not(after.headers.etag, etag);
});
