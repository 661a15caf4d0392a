import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { directoryFixture, PROXY_PREFIX } from '../../routes/directory/fixture.js';
import { runCli, startServer } from '../process.js';

// Child processes (or a browser) start slowly on a busy 2-core machine: allow more than the default.
t.setTimeout(240_000);

t.test('directory through the real server process and the import CLI', async (t) => {
  // Fixture validation (JSON paths, nothing written) is tested in-process in test/commands/directory/importer.test.ts.
  const dataDir = t.testdir();
  const token = `e2e-${randomUUID()}`;
  const goodFile = join(dataDir, 'good.json');
  writeFileSync(
    goodFile,
    JSON.stringify({ directory: directoryFixture({ tokens: [{ token, allowed_origins: [] }] }) }),
  );
  const imported = await runCli('import.ts', [goodFile], { DATA_DIR: dataDir });
  t.equal(imported.code, 0, `import succeeds: ${imported.stderr}`);

  const server = await startServer({ DATA_DIR: dataDir }, 150_000);
  t.teardown(() => server.stop('SIGKILL'));
  const base = server.baseUrl;

  const list = await fetch(`${base}/api/v1/databases?per_page=2`, { headers: { authorization: `Bearer ${token}` } });
  t.equal(list.status, 200);
  const body = (await list.json()) as {
    data: { handle: string; links: { open: string; details: string } }[];
    meta: { total: number };
  };
  t.same(
    body.data.map((d) => d.handle),
    ['ancestry', 'britannica'],
  );
  t.equal(body.meta.total, 5);
  t.equal(list.headers.get('x-ratelimit-limit'), '120');

  const jstor = (await (await fetch(`${base}/api/v1/databases/jstor?token=${token}`)).json()) as {
    data: { links: { open: string; details: string } };
  };
  t.equal(jstor.data.links.open, `${base}/directory/go/jstor`, 'links use the server address');
  const redirect = await fetch(jstor.data.links.open, { redirect: 'manual' });
  t.equal(redirect.status, 302);
  t.equal(redirect.headers.get('location'), `${PROXY_PREFIX}https://www.jstor.org/`);
  const details = await fetch(jstor.data.links.details);
  t.equal(details.status, 200);
  t.match(await details.text(), /<h1>JSTOR<\/h1>/);

  t.equal((await fetch(`${base}/api/v1/library`)).status, 401);
  const widget = await fetch(`${base}/widget.js`);
  t.match(widget.headers.get('content-type'), /application\/javascript/);
  t.match(await widget.text(), /data-catalog-az/);
  const docs = (await (await fetch(`${base}/api/docs.json`)).json()) as { paths: Record<string, unknown> };
  t.ok(
    docs.paths['/api/v1/databases'] && docs.paths['/directory/go/{handle}'],
    'the OpenAPI document lists the directory',
  );
});
