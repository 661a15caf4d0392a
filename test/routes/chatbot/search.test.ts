import t from 'tap';
import { buildTestApp, json } from '../../helper.js';
import { chatbotFixture, form, indexedKeys, post, settle, writePost, type SearchBody } from './support.js';

t.test('POST /chatbot/api/search', async (t) => {
  const { app, runtime } = await buildTestApp(t, { fixture: chatbotFixture, config: { chatbotRateLimit: 0 } });
  await writePost(runtime, 1, {
    title: 'Violin restoration diary',
    slug: 'violin-diary',
    content: '<p>Our conservator restored the violin varnish.</p>',
    status: 'published',
    published_at: '2025-01-01 10:00:00',
    site_ids: [1],
  });
  await settle(runtime);
  const search = async (payload: object) => {
    const res = await post(app, 'search', payload);
    t.equal(res.statusCode, 200, JSON.stringify(payload));
    return json<SearchBody>(res);
  };

  t.test('every field of a result, nearest first, one per resource URL', async (t) => {
    const body = await search({ query: 'Stradivari violin Cremona' });
    t.same(Object.keys(body).sort(), ['page', 'per_page', 'results', 'total']);
    t.equal(body.page, 1);
    t.equal(body.per_page, 10);
    const first = body.results[0];
    t.same(first, {
      resource_type: 'item',
      resource_id: 101,
      title: 'Stradivari violin',
      url: '/item/101',
      distance: first.distance,
      snippet: 'A violin made by Antonio Stradivari in Cremona in 1715. It was donated to the museum in 1950.',
    });
    t.ok(first.distance >= 0 && first.distance < 0.6, `a close match has a small distance (${first.distance})`);
    for (let i = 1; i < body.results.length; i++)
      t.ok(body.results[i - 1].distance <= body.results[i].distance, 'sorted by distance');
    const urls = body.results.map((r) => r.url);
    t.equal(new Set(urls).size, urls.length, 'one result per URL');
    t.same(
      urls.slice(0, 3).sort(),
      ['/blog/violin-diary', '/item/101', '/media/1010'].sort(),
      'the violin resources lead',
    );
    t.equal(body.total, body.results.length, 'total counts distinct resources');
  });

  t.test('every public resource type, with its URL', async (t) => {
    t.same(
      await indexedKeys(app),
      ['blog_post-1', 'item-100', 'item-101', 'item-102', 'media-1000', 'media-1010', 'site_page-5'].sort(),
    );
    const page = (await search({ query: 'opening hours Saturdays' })).results[0];
    t.same(
      [page.resource_type, page.resource_id, page.url, page.title],
      ['site_page', 5, '/page/visit', 'Visiting the museum'],
    );
    const media = (await search({ query: 'castle of Sao Jorge legend' })).results[0];
    t.same([media.resource_type, media.url], ['media', '/media/1000']);
  });

  t.test("site_slug rewrites URLs; site_id keeps that site's resources", async (t) => {
    const body = await search({ query: 'violin', site_slug: 'annex', site_id: 2 });
    t.same(
      body.results.map((r) => r.url).sort(),
      ['/s/annex/item/101', '/s/annex/item/102', '/s/annex/media/1010'].sort(),
    );
    const main = await search({ query: 'violin', site_id: 1 });
    t.notOk(
      main.results.some((r) => r.resource_id === 102),
      'the harpsichord is on site 2 only',
    );
    t.ok(
      main.results.some((r) => r.url === '/blog/violin-diary'),
      'posts carry their site ids',
    );
    t.same((await search({ query: 'violin', site_id: 99 })).results, []);
  });

  t.test('item_set_ids: items in the sets and their media only; no posts or pages', async (t) => {
    const maps = await search({ query: 'violin map museum', item_set_ids: [10] });
    t.same(maps.results.map((r) => `${r.resource_type}-${r.resource_id}`).sort(), ['item-100', 'media-1000']);
    const both = await search({ query: 'violin map museum', item_set_ids: [10, 20] });
    t.same(both.results.map((r) => r.resource_type).sort(), ['item', 'item', 'item', 'media', 'media']);
    const ignored = await search({ query: 'violin map museum', item_set_ids: [0, -3, 'x', null, 20] });
    t.same(
      ignored.results.map((r) => r.resource_id).sort((a, b) => a - b),
      [101, 102, 1010],
      'non-positive and non-numeric entries are ignored',
    );
    const onlyJunk = await search({ query: 'violin map museum', item_set_ids: [0, 'abc'] });
    t.equal(onlyJunk.total, 7, 'nothing valid left: no restriction');
    t.equal(
      (await search({ query: 'violin map museum', item_set_ids: [] })).total,
      7,
      'an empty array means no restriction',
    );
  });

  t.test('form bodies: strings, repeated item_set_ids[] and comma lists', async (t) => {
    const repeated = await form(
      app,
      'search',
      'query=violin&item_set_ids%5B%5D=10&item_set_ids%5B%5D=20&per_page=2&page=2',
    );
    t.equal(repeated.statusCode, 200);
    const body = json<SearchBody>(repeated);
    t.equal(body.page, 2);
    t.equal(body.per_page, 2);
    t.equal(body.total, 5);
    t.equal(body.results.length, 2);
    const comma = json<SearchBody>(await form(app, 'search', 'query=violin&item_set_ids=10,20'));
    t.equal(comma.total, 5);
    const single = json<SearchBody>(await form(app, 'search', 'query=violin&item_set_ids=10&site_id=1&site_slug=main'));
    t.same(single.results.map((r) => r.url).sort(), ['/s/main/item/100', '/s/main/media/1000']);
    const twice = await form(app, 'search', 'query=violin&query=map&per_page=2&per_page=3');
    t.equal(twice.statusCode, 200, 'a form may repeat a single-valued field: its first value counts');
    t.equal(json<SearchBody>(twice).per_page, 2);
  });

  t.test('paging: default 10, over 50 treated as 50, pages beyond the end are empty', async (t) => {
    const all = await search({ query: 'museum violin', per_page: 100 });
    t.equal(all.per_page, 50);
    t.equal(all.results.length, 7);
    const p1 = await search({ query: 'museum violin', per_page: 3 });
    const p3 = await search({ query: 'museum violin', per_page: 3, page: 3 });
    t.same(p1.results, all.results.slice(0, 3));
    t.same(p3.results, all.results.slice(6, 9));
    t.equal(p3.total, 7);
    t.same((await search({ query: 'museum violin', page: 9 })).results, []);
    t.same(
      (await search({ query: 'museum violin', page: '2', per_page: '5' })).results,
      all.results.slice(5, 10),
      'numeric strings are accepted',
    );
  });

  t.test("bad input gets 400 with the seed's message", async (t) => {
    const cases: [object, string][] = [
      [{}, 'Query is required.'],
      [{ query: '' }, 'Query is required.'],
      [{ query: '   ' }, 'Query is required.'],
      [{ question: 'violin' }, 'Query is required.'],
      [{ query: 'x'.repeat(501) }, 'Query must be at most 500 characters.'],
      [{ query: 42 }, 'Query must be a string.'],
      [{ query: 'violin', page: 0 }, 'page must be a positive integer.'],
      [{ query: 'violin', page: 'two' }, 'page must be a positive integer.'],
      [{ query: 'violin', per_page: -1 }, 'per_page must be a positive integer.'],
      [{ query: 'violin', per_page: 1.5 }, 'per_page must be a positive integer.'],
      [{ query: 'violin', site_id: 'main' }, 'site_id must be a positive integer.'],
      [{ query: 'violin', site_slug: 5 }, 'site_slug must be a string.'],
      [{ query: 'map', site_slug: '\ud800' }, 'site_slug is not valid text.'],
      [{ query: 'map', site_slug: 'a\udfffb' }, 'site_slug is not valid text.'],
      [{ query: ['violin', 'map'] }, 'Query must be a string.'],
      [{ query: 'violin', page: ['2'] }, 'page must be a positive integer.'],
      [{ query: 'violin', site_slug: ['main'] }, 'site_slug must be a string.'],
    ];
    for (const [payload, error] of cases) {
      const res = await post(app, 'search', payload);
      t.equal(res.statusCode, 400, JSON.stringify(payload));
      t.same(json(res), { error }, JSON.stringify(payload));
    }
    t.equal((await post(app, 'search', { query: 'é'.repeat(500) })).statusCode, 200, '500 characters is fine');
    const bad = await app.inject({
      method: 'POST',
      url: '/chatbot/api/search',
      headers: { 'content-type': 'application/json' },
      payload: '{"query":',
    });
    t.equal(bad.statusCode, 400);
    t.same(json(bad), { error: 'The request body is not valid JSON.' });
    const noBody = await app.inject({ method: 'POST', url: '/chatbot/api/search' });
    t.same([noBody.statusCode, json(noBody)], [400, { error: 'Query is required.' }]);
  });

  t.test('other methods: 405 Method not allowed.', async (t) => {
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'] as const) {
      const res = await app.inject({ method, url: '/chatbot/api/search' });
      t.equal(res.statusCode, 405, method);
      t.same(json(res), { error: 'Method not allowed.' });
    }
  });

  t.test('snippets are at most 300 characters of the chunk', async (t) => {
    const long = Array.from({ length: 60 }, (_, i) => `Telescope lens number ${i} was ground by hand.`).join(' ');
    await runtime.eventStore.append(
      'blog_post-2',
      [
        {
          type: 'BlogPostCreated',
          data: {
            id: 2,
            fields: {
              title: 'Telescopes',
              slug: 'telescopes',
              excerpt: '',
              content: long,
              status: 'published',
              published_at: '2025-01-01 00:00:00',
              tags: [],
              site_ids: [1],
            },
          },
          metadata: { userId: 1, at: '2026-01-01 00:00:00' },
        },
      ],
      'any',
    );
    await settle(runtime);
    const [hit] = (await search({ query: 'telescope lens ground by hand' })).results;
    t.equal(hit.url, '/blog/telescopes');
    t.equal(hit.snippet.length, 300);
    t.ok(long.includes(hit.snippet), 'the start of the matching chunk');
  });
});

t.test('search fetches at most 100 chunks, 150 with a site filter', async (t) => {
  const items = Array.from({ length: 130 }, (_, i) => ({
    id: 200 + i,
    title: `Coin ${i}`,
    description: `A silver coin, number ${i}.`,
    site_ids: [1],
    is_public: true,
  }));
  const { app, runtime } = await buildTestApp(t, {
    fixture: { sites: [{ id: 1, slug: 'main', title: 'Main' }], items },
    config: { chatbotRateLimit: 0 },
  });
  await settle(runtime);
  const all = json<SearchBody>(await post(app, 'search', { query: 'silver coin', per_page: 50, page: 2 }));
  t.equal(all.total, 100, 'distinct resources among the 100 fetched chunks');
  t.equal(all.results.length, 50);
  const site = json<SearchBody>(await post(app, 'search', { query: 'silver coin', site_id: 1, per_page: 50, page: 3 }));
  t.equal(site.total, 130, 'up to 150 chunks with a site filter');
  t.equal(site.results.length, 30);
});
