import t from 'tap';
import { importFixtureFile, startServer } from '../process.js';

const fixture = {
  users: [{ id: 1, email: 'ed@example.org', name: 'Ed Editor', role: 'editor', password: 'editor-pass' }],
  sites: [{ id: 1, slug: 'main', title: 'Main site' }],
  site_pages: [
    { id: 5, site_id: 1, slug: 'about', title: 'About', blocks: [{ layout: 'html', data: { html: '<p>One</p>' } }] },
  ],
};

// An import CLI run and two server starts: on a busy machine that can pass the default 120 s.
t.setTimeout(300_000);

interface Summary {
  id: number;
  operation: string;
  title: string;
  editor_name: string;
  summary: string | null;
}

t.test('version history through the real server: import, edit, revert, restart', async (t) => {
  const dataDir = t.testdir();
  const imported = await importFixtureFile(dataDir, fixture, 'page-versioning-fixture');
  t.equal(imported.code, 0, `import exits 0: ${imported.stderr}`);

  let server = await startServer({ DATA_DIR: dataDir });
  t.teardown(() => server.stop('SIGKILL'));
  const login = async () => {
    const res = await fetch(`${server.baseUrl}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ed@example.org', password: 'editor-pass' }),
    });
    t.equal(res.status, 204);
    return (res.headers.get('set-cookie') ?? '').split(';')[0];
  };
  const versions = async (cookie: string) => {
    const res = await fetch(`${server.baseUrl}/api/page-versioning/5/versions`, { headers: { cookie } });
    t.equal(res.status, 200);
    return ((await res.json()) as { data: { versions: Summary[] } }).data.versions;
  };

  let cookie = await login();
  const patched = await fetch(`${server.baseUrl}/api/site_pages/5`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ 'o:title': 'About us' }),
  });
  t.equal(patched.status, 200);
  const [update, create] = await versions(cookie);
  t.same(
    [update.operation, update.title, update.editor_name, create.operation],
    ['update', 'About us', 'Ed Editor', 'create'],
  );

  const reverted = await fetch(`${server.baseUrl}/api/page-versioning/version/${create.id}/revert`, {
    method: 'POST',
    headers: { cookie },
  });
  t.equal(reverted.status, 200);
  const newId = ((await reverted.json()) as { data: { new_version_id: number } }).data.new_version_id;
  const before = await versions(cookie);
  t.same(
    before.map((v) => [v.id, v.operation, v.title]),
    [
      [newId, 'revert', 'About'],
      [update.id, 'update', 'About us'],
      [create.id, 'create', 'About'],
    ],
  );
  t.match(
    before[0].summary,
    new RegExp(`^Reverted to version #${create.id} \\(saved \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\)$`),
  );

  await server.stop();
  server = await startServer({ DATA_DIR: dataDir });
  cookie = await login();
  t.same(await versions(cookie), before, 'the same versions with the same ids after a restart');
  const one = await fetch(`${server.baseUrl}/api/page-versioning/version/${update.id}`, { headers: { cookie } });
  t.equal(((await one.json()) as { data: { payload: { title: string } } }).data.payload.title, 'About us');
  const page = await fetch(`${server.baseUrl}/api/site_pages/5`);
  t.equal(((await page.json()) as Record<string, unknown>)['o:title'], 'About', 'the revert survives the restart');
});
