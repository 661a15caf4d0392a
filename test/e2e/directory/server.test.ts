import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { directoryFixture, PROXY_PREFIX } from '../../routes/directory/fixture.js';
import { freePort } from '../process.js';

async function waitUntilUp(url: string, child: ChildProcess, timeoutMs = 150_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('server did not start in time');
}

// Child processes (or a browser) start slowly on a busy 2-core machine: allow more than the default.
t.setTimeout(240_000);

t.test('directory through the real server process and the import CLI', async (t) => {
  // Fixture validation (JSON paths, nothing written) is tested in-process in test/commands/directory/importer.test.ts.
  const dataDir = t.testdir();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' };
  delete env.BASE_URL;
  // A fresh token per run: with REDIS_URL the rate-limit count is shared beyond this process.
  const token = `e2e-${randomUUID()}`;
  const runImport = (file: string) => spawnSync(process.execPath, ['--import', 'tsx', 'bin/import.ts', file], { env, encoding: 'utf8', timeout: 150_000 });

  const goodFile = join(dataDir, 'good.json');
  writeFileSync(goodFile, JSON.stringify({ directory: directoryFixture({ tokens: [{ token, allowed_origins: [] }] }) }));
  const imported = runImport(goodFile);
  t.equal(imported.status, 0, `import succeeds: ${imported.stderr}`);

  const server = spawn(process.execPath, ['--import', 'tsx', 'bin/serve.ts'], { env, stdio: 'ignore' });
  t.teardown(() => {
    if (server.exitCode === null) server.kill('SIGKILL');
  });
  await waitUntilUp(`${base}/widget.js`, server);

  const list = await fetch(`${base}/api/v1/databases?per_page=2`, { headers: { authorization: `Bearer ${token}` } });
  t.equal(list.status, 200);
  const body = (await list.json()) as { data: { handle: string; links: { open: string; details: string } }[]; meta: { total: number } };
  t.same(body.data.map((d) => d.handle), ['ancestry', 'britannica']);
  t.equal(body.meta.total, 5);
  t.equal(list.headers.get('x-ratelimit-limit'), '120');

  const jstor = (await (await fetch(`${base}/api/v1/databases/jstor?token=${token}`)).json()) as { data: { links: { open: string; details: string } } };
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
  t.ok(docs.paths['/api/v1/databases'] && docs.paths['/directory/go/{handle}'], 'the OpenAPI document lists the directory');
});
