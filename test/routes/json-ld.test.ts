import type { FastifyReply, FastifyRequest } from 'fastify';
import t from 'tap';
import { MAX_LINK_QUERY_LENGTH, pageWindow, setPaginationHeaders } from '../../routes/json-ld.js';
import { buildTestApp, keyFor, ROLE_USERS } from '../helper.js';

/** The querystring schema of a list route, as Fastify keeps it in routeOptions. */
const LIST_QUERY = { type: 'object', properties: { page: {}, per_page: {}, site_id: {}, search: {} } };

function linkFor(
  url: string,
  total: number,
  query: { page?: number; per_page?: number },
): { link: string | undefined; total: string } {
  const headers: Record<string, string> = {};
  const reply = {
    header: (name: string, value: string) => (headers[name.toLowerCase()] = value),
  } as unknown as FastifyReply;
  const request = { url, routeOptions: { schema: { querystring: LIST_QUERY } } } as unknown as FastifyRequest;
  setPaginationHeaders(request, reply, 'http://x.test', total, pageWindow(query, 10));
  return { link: headers.link, total: headers['platform-total-results'] };
}

t.test('Link keeps the other parameters, encoded, and replaces page and per_page', async (t) => {
  const { link, total } = linkFor('/api/items?site_id=1&page=2&search=a%20b&per_page=5', 23, { page: 2, per_page: 5 });
  t.equal(total, '23');
  t.equal(
    link,
    [
      '<http://x.test/api/items?site_id=1&search=a+b&page=1&per_page=5>; rel="first"',
      '<http://x.test/api/items?site_id=1&search=a+b&page=1&per_page=5>; rel="prev"',
      '<http://x.test/api/items?site_id=1&search=a+b&page=3&per_page=5>; rel="next"',
      '<http://x.test/api/items?site_id=1&search=a+b&page=5&per_page=5>; rel="last"',
    ].join(', '),
  );
});

t.test('without other parameters the links start with page; one page has no prev or next', async (t) => {
  t.equal(
    linkFor('/api/items', 3, {}).link,
    '<http://x.test/api/items?page=1&per_page=10>; rel="first", <http://x.test/api/items?page=1&per_page=10>; rel="last"',
  );
});

t.test('a URL asked for again with another total gets the links of that total', async (t) => {
  const url = '/api/items?per_page=10&page=2';
  const before = linkFor(url, 25, { page: 2, per_page: 10 });
  t.match(before.link, /page=3&per_page=10>; rel="next", <[^>]*page=3&per_page=10>; rel="last"/);
  t.equal(linkFor(url, 25, { page: 2, per_page: 10 }).link, before.link, 'the same total, the same links');
  const after = linkFor(url, 40, { page: 2, per_page: 10 });
  t.match(after.link, /page=4&per_page=10>; rel="last"/);
  t.equal(after.total, '40');
});

t.test('Link drops credentials and parameters the route does not declare', async (t) => {
  const url = `/api/items?site_id=1&key_identity=me&key_credential=secret&token=T&junk=${'x'.repeat(12_000)}&search=a`;
  const { link } = linkFor(url, 30, { page: 1, per_page: 10 });
  t.equal(
    link,
    '<http://x.test/api/items?site_id=1&search=a&page=1&per_page=10>; rel="first", ' +
      '<http://x.test/api/items?site_id=1&search=a&page=2&per_page=10>; rel="next", ' +
      '<http://x.test/api/items?site_id=1&search=a&page=3&per_page=10>; rel="last"',
  );
});

t.test('every list with a Link header keeps credentials and unknown parameters out of it', async (t) => {
  const { app } = await buildTestApp(t, {
    fixture: {
      users: ROLE_USERS,
      sites: [{ id: 1, slug: 'main', title: 'Main' }],
      item_sets: [{ id: 10, title: 'Maps' }],
      items: [{ id: 100, title: 'Map', media: [{ id: 1000, title: 'Scan' }] }],
      site_pages: [{ id: 5, site_id: 1, slug: 'about', title: 'About' }],
      blog: {
        categories: [{ id: 1, name: 'News', slug: 'news' }],
        posts: [
          {
            id: 1,
            title: 'Hello',
            slug: 'hello',
            content: '<p>Hi</p>',
            status: 'published',
            author_id: 1,
            category_id: 1,
            tags: ['maps'],
            published_at: '2026-01-02 03:04:05',
          },
        ],
        comments: [
          { id: 1, post_id: 1, author_name: 'Bo', author_email: 'bo@example.org', body: 'Nice', status: 'approved' },
        ],
      },
    },
  });
  const lists = [
    '/api/sites',
    '/api/item_sets',
    '/api/items',
    '/api/media',
    '/api/site_pages',
    '/api/blog_posts',
    '/api/blog_categories',
    '/api/blog_tags',
    '/api/blog_comments',
  ];
  const unknown = 'x'.repeat(12_000);
  for (const list of lists) {
    const res = await app.inject({
      method: 'GET',
      url: `${list}?${keyFor('global_admin')}&token=T&unknown=${unknown}&per_page=1`,
    });
    t.equal(res.statusCode, 200, list);
    const link = String(res.headers.link);
    t.match(link, /rel="first"/, `${list} has a Link header`);
    t.notMatch(
      link,
      /key_identity|key_credential|global_admin-secret|token=|unknown=/,
      `${list}: no credential and no unknown parameter`,
    );
    t.ok(link.length < 1000, `${list}: the header stays short (${link.length} characters)`);
  }
  const filtered = await app.inject({ method: 'GET', url: `/api/items?site_id=1&${keyFor('global_admin')}` });
  t.match(
    String(filtered.headers.link),
    /\/api\/items\?site_id=1&page=1&per_page=25>; rel="first"/,
    'a declared filter is kept',
  );
});

t.test('a list whose own filters are too long for a header has no Link header, and its total', async (t) => {
  const long = linkFor(`/api/items?search=${'y'.repeat(MAX_LINK_QUERY_LENGTH)}`, 30, { page: 1, per_page: 10 });
  t.equal(long.link, undefined, 'no links rather than links to other results');
  t.equal(long.total, '30');
  const fits = linkFor(`/api/items?search=${'y'.repeat(MAX_LINK_QUERY_LENGTH - 'search='.length)}`, 30, {
    page: 1,
    per_page: 10,
  });
  t.match(fits.link, /rel="first"/, 'up to the limit the filters are kept');
});
