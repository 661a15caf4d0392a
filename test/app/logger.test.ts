import { Writable } from 'node:stream';
import t from 'tap';
import { createLogger, redactedUrl } from '../../app/logger.js';
import { buildTestApp, ROLE_USERS } from '../helper.js';

t.test('redactedUrl hides the values of secret query parameters and keeps the rest', async (t) => {
  t.equal(redactedUrl('/api/items'), '/api/items');
  t.equal(
    redactedUrl('/api/items?page=2&sort_by=title'),
    '/api/items?page=2&sort_by=title',
    'nothing secret: as it was',
  );
  t.equal(
    redactedUrl('/api/items?key_identity=ID&key_credential=S3CRET&page=2'),
    '/api/items?key_identity=ID&key_credential=%5Bredacted%5D&page=2',
  );
  t.equal(redactedUrl('/api/v1/databases?token=T0KEN'), '/api/v1/databases?token=%5Bredacted%5D');
  t.notMatch(redactedUrl('/x?key_credential=a&key_credential=b'), /=a|=b/, 'every repetition');
});

t.test('at debug level, the server logs each request without the credentials in its query string', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const fixture = { users: ROLE_USERS, sites: [{ id: 1, slug: 'main', title: 'Main' }] };
  const { app } = await buildTestApp(t, {
    fixture,
    logger: createLogger('debug', sink),
    config: { logLevel: 'debug' },
  });
  for (const credential of ['editor-secret', 'not-the-secret']) {
    await app.inject({ method: 'GET', url: `/api/items?key_identity=editor-id&key_credential=${credential}&page=1` });
  }
  await app.inject({ method: 'GET', url: '/api/v1/databases?token=directory-token-value' });
  const requests = lines.filter((line) => line.includes('incoming request'));
  t.equal(requests.length, 3, 'every request is logged');
  t.match(requests[0], /key_identity=editor-id&key_credential=%5Bredacted%5D&page=1/, 'the rest of the URL is there');
  for (const secret of ['editor-secret', 'not-the-secret', 'directory-token-value']) {
    t.notOk(
      lines.some((line) => line.includes(secret)),
      `${secret} is in no line`,
    );
  }
});
