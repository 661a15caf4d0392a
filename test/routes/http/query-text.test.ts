import type { FastifyRequest } from 'fastify';
import t from 'tap';
import { queryText } from '../../../routes/http/query-text.js';

const withQuery = (query: unknown) => ({ query }) as unknown as FastifyRequest;

t.test('queryText reads one text parameter of a query it knows nothing about', async (t) => {
  t.equal(queryText(withQuery({ token: 'abc' }), 'token'), 'abc');
  t.equal(queryText(withQuery({ token: ['a', 'b'] }), 'token'), undefined, 'a repeated parameter is not text');
  t.equal(queryText(withQuery({ token: 5 }), 'token'), undefined, 'a value a schema coerced is not text');
  t.equal(queryText(withQuery({}), 'token'), undefined);
  t.equal(queryText(withQuery(undefined), 'token'), undefined);
  t.equal(queryText(withQuery(null), 'token'), undefined);
  t.equal(queryText(withQuery('token=abc'), 'token'), undefined, 'only a parsed query is read');
});
