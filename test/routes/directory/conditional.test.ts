import t from 'tap';
import { buildTestApp, json, keyFor, ROLE_USERS } from '../../helper.js';
import { directoryFixture, OPEN_TOKEN } from './fixture.js';

t.test('a database: strong ETag on the directory API, If-Match on its admin PATCH', async (t) => {
  const { app } = await buildTestApp(t, { fixture: { users: ROLE_USERS, directory: directoryFixture() } });
  const admin = keyFor('global_admin');
  const bearer = { authorization: `Bearer ${OPEN_TOKEN}` };
  const read = await app.inject({ url: '/api/v1/databases/jstor', headers: bearer });
  t.equal(read.statusCode, 200);
  const etag = read.headers.etag as string;
  t.match(etag, /^"[1-9][0-9]*-/);
  t.equal(read.headers['cache-control'], 'private, no-cache', 'a token is a credential');
  t.match(read.headers.vary, /Authorization/);
  t.notOk('version' in json<{ data: Record<string, unknown> }>(read).data, "the record keeps the seed's fields");
  t.equal(
    (await app.inject({ url: '/api/v1/databases/jstor', headers: { ...bearer, 'if-none-match': etag } })).statusCode,
    304,
  );

  const [a, b] = await Promise.all([
    app.inject({
      method: 'PATCH',
      url: `/api/directory/databases/jstor?${admin}`,
      headers: { 'if-match': etag },
      payload: { name: 'JSTOR A' },
    }),
    app.inject({
      method: 'PATCH',
      url: `/api/directory/databases/jstor?${admin}`,
      headers: { 'if-match': etag },
      payload: { description: 'B' },
    }),
  ]);
  t.same([a.statusCode, b.statusCode].sort(), [200, 412]);
  const [won, lost] = a.statusCode === 200 ? [a, b] : [b, a];
  t.same(Object.keys(json(lost)), ['errors'], 'native shape on the admin surface');
  const now = json<{ data: Record<string, unknown> }>(
    await app.inject({ url: '/api/v1/databases/jstor', headers: bearer }),
  ).data;
  const winner = json<Record<string, unknown>>(won);
  t.same([now.name, now.description], [winner.name, winner.description], 'the loser changed nothing');
  const again = await app.inject({
    method: 'PATCH',
    url: `/api/directory/databases/jstor?${admin}`,
    headers: { 'if-match': won.headers.etag as string },
    payload: { featured: false },
  });
  t.equal(again.statusCode, 200, "the write's own ETag is current");
});
