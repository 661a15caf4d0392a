import type { FastifyReply, FastifyRequest } from 'fastify';
import t from 'tap';
import { pageWindow, setPaginationHeaders } from '../../routes/json-ld.js';

function linkFor(url: string, total: number, query: { page?: number; per_page?: number }): { link: string; total: string } {
  const headers: Record<string, string> = {};
  const reply = { header: (name: string, value: string) => (headers[name.toLowerCase()] = value) } as unknown as FastifyReply;
  setPaginationHeaders({ url } as FastifyRequest, reply, 'http://x.test', total, pageWindow(query, 10));
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
  t.equal(linkFor('/api/items', 3, {}).link, '<http://x.test/api/items?page=1&per_page=10>; rel="first", <http://x.test/api/items?page=1&per_page=10>; rel="last"');
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
