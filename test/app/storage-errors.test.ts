import Database from 'better-sqlite3';
import Fastify from 'fastify';
import t from 'tap';
import { installErrorHandler } from '../../app/error-handler.js';
import { StorageFullError } from '../../infra/errors.js';

/**
 * Issue 36, part 3: a full disk is the client's 507 Insufficient Storage (an I/O error a 503),
 * in each surface's error shape and with Retry-After, whether an adapter translated the
 * driver's error or a store's error reached the handler as the driver threw it.
 */

function noSpace(): Error {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
}

const FULL = "The server's storage is full: nothing was saved. Try again once space has been freed.";

t.test('a full disk answers 507 with Retry-After in every surface shape; an I/O error 503', async (t) => {
  const app = Fastify({ logger: false });
  installErrorHandler(app);
  const throwing = (error: () => Error) => async () => {
    throw error();
  };
  app.post(
    '/api/items',
    throwing(() => new Database.SqliteError('database or disk is full', 'SQLITE_FULL')),
  );
  app.post('/api/blog/posts', throwing(noSpace));
  app.post(
    '/api/asset-picker/upload',
    throwing(() => new StorageFullError('files')),
  );
  app.post(
    '/api/v1/thing',
    throwing(() => new Database.SqliteError('disk I/O error', 'SQLITE_IOERR_WRITE')),
  );
  t.teardown(() => app.close());

  const cases = [
    { url: '/api/items', status: 507, body: { errors: { error: FULL } } },
    { url: '/api/blog/posts', status: 507, body: { error: FULL } },
    { url: '/api/asset-picker/upload', status: 507, body: { status: 'error', message: FULL } },
    {
      url: '/api/v1/thing',
      status: 503,
      body: { error: "The server's storage failed to write; nothing was saved. Try again later." },
    },
  ];
  for (const { url, status, body } of cases) {
    const res = await app.inject({ method: 'POST', url });
    t.equal(res.statusCode, status, `${url}: ${status}`);
    t.same(res.json(), body, `${url}: the surface's shape, no driver text or path`);
    t.ok(Number(res.headers['retry-after']) > 0, `${url}: Retry-After`);
  }
});
