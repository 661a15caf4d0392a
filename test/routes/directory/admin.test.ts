import t from 'tap';
import { buildTestApp, json, keyFor, ROLE_USERS, sessionFor } from '../../helper.js';
import { directoryFixture, OPEN_TOKEN } from './fixture.js';

interface IssuedToken {
  id: number;
  token: string;
  label: string;
  allowed_origins: string[];
  created_at: string;
  revoked_at: string | null;
}

t.test('directory admin endpoints', async (t) => {
  const { app, runtime } = await buildTestApp(t, { fixture: { users: ROLE_USERS, directory: directoryFixture() } });
  const admin = keyFor('global_admin');

  t.test('tokens: create (shown once, stored hashed), list, use, revoke', async (t) => {
    const created = await app.inject({
      method: 'POST',
      url: `/api/directory/tokens?${admin}`,
      payload: { allowed_origins: ['https://Museum.Example.org/'], label: 'museum site' },
    });
    t.equal(created.statusCode, 201);
    const token = json<IssuedToken>(created);
    t.ok(token.token.length >= 40, 'a long random token');
    t.ok(Number.isInteger(token.id));
    t.same(token.allowed_origins, ['https://museum.example.org'], 'origins are kept in canonical form');
    t.equal(token.label, 'museum site');
    t.equal(token.revoked_at, null);

    const stored = JSON.stringify(await runtime.eventStore.readStream(`directory-token-${token.id}`));
    t.notOk(stored.includes(token.token), 'the plain token is not in the event log');

    const listed = json<Record<string, unknown>[]>(
      await app.inject({ method: 'GET', url: `/api/directory/tokens?${admin}` }),
    );
    t.equal(listed.length, 3, 'two fixture tokens and the new one');
    for (const entry of listed) {
      t.notOk('token' in entry || 'token_hash' in entry, 'no secret in the list');
    }
    const museum = (origin: string) =>
      app.inject({
        method: 'GET',
        url: '/api/v1/library',
        headers: { authorization: `Bearer ${token.token}`, origin },
      });
    t.equal((await museum('https://museum.example.org')).statusCode, 200, 'the new token works from its origin');
    t.equal((await museum('https://other.example.org')).statusCode, 403, 'and only from there');

    const revoked = await app.inject({ method: 'DELETE', url: `/api/directory/tokens/${token.id}?${admin}` });
    t.equal(revoked.statusCode, 200);
    t.type(json<IssuedToken>(revoked).revoked_at, 'string');
    t.equal((await museum('https://museum.example.org')).statusCode, 401, 'a revoked token is refused');
    t.equal(
      (await app.inject({ method: 'DELETE', url: `/api/directory/tokens/${token.id}?${admin}` })).statusCode,
      404,
      'revoking twice is 404',
    );
    t.equal((await app.inject({ method: 'DELETE', url: `/api/directory/tokens/999?${admin}` })).statusCode, 404);
    const active = json<{ id: number }[]>(await app.inject({ method: 'GET', url: `/api/directory/tokens?${admin}` }));
    t.notOk(
      active.some((a) => a.id === token.id),
      'revoked tokens leave the default list',
    );
    const all = json<{ id: number }[]>(
      await app.inject({ method: 'GET', url: `/api/directory/tokens?include_revoked=1&${admin}` }),
    );
    t.ok(
      all.some((a) => a.id === token.id),
      'include_revoked=1 shows them',
    );
  });

  t.test('a token with no origins, created by session with no body', async (t) => {
    const cookie = await sessionFor(app, 'global_admin');
    const res = await app.inject({ method: 'POST', url: '/api/directory/tokens', headers: { cookie } });
    t.equal(res.statusCode, 201);
    const token = json<IssuedToken>(res);
    t.same(token.allowed_origins, []);
    const used = await app.inject({
      method: 'GET',
      url: `/api/v1/types?token=${encodeURIComponent(token.token)}`,
      headers: { origin: 'https://x.example' },
    });
    t.equal(used.statusCode, 200);
  });

  t.test('bad input and permissions', async (t) => {
    const bad = await app.inject({
      method: 'POST',
      url: `/api/directory/tokens?${admin}`,
      payload: { allowed_origins: ['not an origin'] },
    });
    t.equal(bad.statusCode, 422);
    t.ok(json<{ errors: Record<string, string[]> }>(bad).errors.allowed_origins);
    const withPath = await app.inject({
      method: 'POST',
      url: `/api/directory/tokens?${admin}`,
      payload: { allowed_origins: ['https://a.example/path'] },
    });
    t.equal(withPath.statusCode, 422, 'an origin has no path');
    const wrongType = await app.inject({
      method: 'POST',
      url: `/api/directory/tokens?${admin}`,
      payload: { allowed_origins: { a: 1 } },
    });
    t.equal(wrongType.statusCode, 422);
    for (const role of ['site_admin', 'editor', 'researcher'] as const) {
      const res = await app.inject({ method: 'POST', url: `/api/directory/tokens?${keyFor(role)}`, payload: {} });
      t.equal(res.statusCode, 403, `${role} may not create tokens`);
    }
    t.equal(
      (await app.inject({ method: 'POST', url: '/api/directory/tokens', payload: {} })).statusCode,
      403,
      'anonymous',
    );
    t.equal((await app.inject({ method: 'GET', url: '/api/directory/tokens' })).statusCode, 403);
    t.equal(
      (await app.inject({ method: 'DELETE', url: `/api/directory/tokens/1?${keyFor('editor')}` })).statusCode,
      403,
    );
    t.equal(
      (await app.inject({ method: 'GET', url: '/api/directory/tokens?key_identity=global_admin-id&key_credential=x' }))
        .statusCode,
      403,
    );
  });

  t.test('library settings: plan change takes effect at once', async (t) => {
    const read = await app.inject({ method: 'GET', url: `/api/directory/library?${admin}` });
    t.same(json(read), {
      name: 'City Library',
      plan: 'plus',
      brand_color: '#8a1538',
      proxy_prefix: 'https://proxy.example.edu/login?url=',
    });
    const basic = await app.inject({
      method: 'PATCH',
      url: `/api/directory/library?${admin}`,
      payload: { plan: 'basic' },
    });
    t.equal(basic.statusCode, 200);
    t.equal(json<{ plan: string }>(basic).plan, 'basic');
    t.equal((await app.inject({ method: 'GET', url: `/api/v1/library?token=${OPEN_TOKEN}` })).statusCode, 403);
    const badColor = await app.inject({
      method: 'PATCH',
      url: `/api/directory/library?${admin}`,
      payload: { brand_color: 'red' },
    });
    t.equal(badColor.statusCode, 422);
    const badPlan = await app.inject({
      method: 'PATCH',
      url: `/api/directory/library?${admin}`,
      payload: { plan: 'gold' },
    });
    t.equal(badPlan.statusCode, 422);
    await app.inject({
      method: 'PATCH',
      url: `/api/directory/library?${admin}`,
      payload: { plan: 'trial', brand_color: '#123456' },
    });
    const lib = json<{ data: { brand_color: string; plan: string } }>(
      await app.inject({ method: 'GET', url: `/api/v1/library?token=${OPEN_TOKEN}` }),
    );
    t.same([lib.data.plan, lib.data.brand_color], ['trial', '#123456']);
    t.equal(
      (
        await app.inject({
          method: 'PATCH',
          url: `/api/directory/library?${keyFor('editor')}`,
          payload: { plan: 'plus' },
        })
      ).statusCode,
      403,
    );
  });

  t.test('hiding a database takes it out of lists, counts, lists and links', async (t) => {
    const get = (url: string) =>
      app.inject({ method: 'GET', url: `${url}${url.includes('?') ? '&' : '?'}token=${OPEN_TOKEN}` });
    const hide = await app.inject({
      method: 'PATCH',
      url: `/api/directory/databases/pubmed?${admin}`,
      payload: { hidden: true },
    });
    t.equal(hide.statusCode, 200);
    t.equal(json<{ hidden: boolean }>(hide).hidden, true);
    t.equal((await get('/api/v1/databases/pubmed')).statusCode, 404);
    t.notOk(
      json<{ data: { handle: string }[] }>(await get('/api/v1/databases')).data.some((d) => d.handle === 'pubmed'),
    );
    const medicine = json<{ data: { handle: string; database_count: number }[] }>(
      await get('/api/v1/subjects'),
    ).data.find((s) => s.handle === 'medicine');
    t.equal(medicine?.database_count, 0, 'facet counts drop it');
    const starter = json<{ data: { databases: { handle: string }[] } }>(await get('/api/v1/lists/starter'));
    t.same(
      starter.data.databases.map((d) => d.handle),
      ['jstor', 'ancestry'],
    );
    t.equal((await app.inject({ method: 'GET', url: '/directory/go/pubmed' })).statusCode, 404);
    t.equal(json<{ data: { database_count: number } }>(await get('/api/v1/library')).data.database_count, 4);

    const unknownSubject = await app.inject({
      method: 'PATCH',
      url: `/api/directory/databases/pubmed?${admin}`,
      payload: { subjects: ['nope'] },
    });
    t.equal(unknownSubject.statusCode, 422);
    const badUrl = await app.inject({
      method: 'PATCH',
      url: `/api/directory/databases/pubmed?${admin}`,
      payload: { url: 'javascript:alert(1)' },
    });
    t.equal(badUrl.statusCode, 422);
    t.equal(
      (await app.inject({ method: 'PATCH', url: `/api/directory/databases/nope?${admin}`, payload: { hidden: false } }))
        .statusCode,
      404,
    );
    const show = await app.inject({
      method: 'PATCH',
      url: `/api/directory/databases/pubmed?${admin}`,
      payload: { hidden: false, featured: true },
    });
    t.equal(show.statusCode, 200);
    t.equal((await get('/api/v1/databases/pubmed')).statusCode, 200);
    t.ok(
      json<{ data: { handle: string }[] }>(await get('/api/v1/databases?featured=1')).data.some(
        (d) => d.handle === 'pubmed',
      ),
    );
  });
});
