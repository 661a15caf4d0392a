import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import t from 'tap';
import { FixedClock } from '../../../infra/clock/port.js';
import { buildTestApp, json, keyFor, ROLE_USERS, sessionFor, type RoleName } from '../../helper.js';

type Record = { [key: string]: unknown };
const fixture = { users: ROLE_USERS, sites: [{ id: 1, slug: 'main', title: 'Main' }] };
const admin = keyFor('global_admin');
const ALL_TRUE = {
  include_db: true,
  include_files: true,
  include_themes: true,
  include_modules: true,
  include_api: true,
};

t.test('backups API', async (t) => {
  const clock = new FixedClock(new Date('2026-03-04T05:06:07.000Z'));
  const { app, config } = await buildTestApp(t, { fixture, clock });
  mkdirSync(join(config.dataDir, 'files'), { recursive: true });
  writeFileSync(join(config.dataDir, 'files', 'scan.txt'), 'scan');

  const post = (query: string, payload?: object, headers: Record = {}) =>
    app.inject({
      method: 'POST',
      url: `/api/backups?${query}`,
      ...(payload ? { payload } : {}),
      headers: headers as { [k: string]: string },
    });

  let first: Record = {};
  t.test('POST with no body makes a complete backup with every part, credited to the caller', async (t) => {
    const res = await post(admin);
    t.equal(res.statusCode, 201);
    first = json<Record>(res);
    const file = first['o:path'] as string;
    t.match(first, {
      '@context': 'http://test.local/api-context',
      '@id': `http://test.local/api/backups/${first['o:id'] as number}`,
      '@type': 'o:Backup',
      'o:filename': /^backup-\d+-20260304-050607\.zip$/,
      'o:storage': 'local',
      'o:status': 'complete',
      'o:checksum': /^sha256:[0-9a-f]{64}$/,
      'o:created_by': 1,
      'o:created_at': '2026-03-04 05:06:07',
      'o:metadata': { backup_module_version: '0.1.0', created_at: '2026-03-04T05:06:07.000Z', includes: ALL_TRUE },
    });
    t.notOk('o:error' in first, 'no o:error on a backup that did not fail');
    t.equal(Number.isInteger(first['o:id']), true);
    t.equal(
      file,
      join(config.dataDir, 'backups', first['o:filename'] as string),
      'o:path is the absolute path in DATA_DIR/backups',
    );
    t.ok(existsSync(file), 'the archive exists');
    const bytes = readFileSync(file);
    t.equal(first['o:size'], bytes.length, 'o:size is the archive size in bytes');
    t.equal(
      first['o:checksum'],
      `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
      'o:checksum is the SHA-256 of the archive file',
    );
    t.same(Object.keys(first['o:metadata'] as object).sort(), ['backup_module_version', 'created_at', 'includes']);
  });

  let second: Record = {};
  t.test('include flags are recorded; a session works too; the supervisor may back up', async (t) => {
    clock.advance(60_000);
    const cookie = await sessionFor(app, 'site_admin');
    const res = await post('', { include_files: false, include_api: false }, { cookie });
    t.equal(res.statusCode, 201);
    second = json<Record>(res);
    t.equal(second['o:created_by'], 2);
    t.same((second['o:metadata'] as Record).includes, { ...ALL_TRUE, include_files: false, include_api: false });
    t.equal(second['o:created_at'], '2026-03-04 05:07:07');
  });

  t.test('an empty body labelled JSON means every part too', async (t) => {
    clock.advance(1000);
    const res = await app.inject({
      method: 'POST',
      url: `/api/backups?${admin}`,
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    t.equal(res.statusCode, 201);
    const record = json<Record>(res);
    t.same((record['o:metadata'] as Record).includes, ALL_TRUE);
    const removed = await app.inject({
      method: 'DELETE',
      url: `/api/backups/${record['o:id'] as number}?${admin}`,
      headers: { 'content-type': 'application/json' },
    });
    t.equal(removed.statusCode, 200);
  });

  t.test('bad bodies are refused with 422 and write nothing', async (t) => {
    const before = json<Record[]>(await app.inject({ method: 'GET', url: `/api/backups?${admin}` })).length;
    const wrongType = await post(admin, { include_db: 'maybe' });
    t.equal(wrongType.statusCode, 422);
    t.match(json(wrongType), { errors: { include_db: [String] } });
    const unknown = await post(admin, { include_everything: true });
    t.equal(unknown.statusCode, 422);
    const badJson = await app.inject({
      method: 'POST',
      url: `/api/backups?${admin}`,
      headers: { 'content-type': 'application/json' },
      payload: '{nope',
    });
    t.equal(badJson.statusCode, 400);
    t.same(json(badJson), { errors: { error: 'The request body is not valid JSON.' } });
    t.equal(json<Record[]>(await app.inject({ method: 'GET', url: `/api/backups?${admin}` })).length, before);
  });

  t.test('GET lists every record newest first; page and per_page are ignored', async (t) => {
    const res = await app.inject({ method: 'GET', url: `/api/backups?${admin}&page=2&per_page=1` });
    t.equal(res.statusCode, 200);
    const list = json<Record[]>(res);
    t.same(
      list.map((r) => r['o:id']),
      [second['o:id'], first['o:id']],
    );
    t.equal(res.headers['platform-total-results'], '2');
    t.same(list[1], first, 'list entries are the full records');
    const bogusPage = await app.inject({ method: 'GET', url: `/api/backups?${admin}&page=abc` });
    t.equal(bogusPage.statusCode, 200, 'page is ignored, even when it is not a number');
  });

  t.test('status filter', async (t) => {
    const complete = await app.inject({ method: 'GET', url: `/api/backups?${admin}&status=complete` });
    t.equal(json<Record[]>(complete).length, 2);
    const failed = await app.inject({ method: 'GET', url: `/api/backups?${admin}&status=failed` });
    t.same(json(failed), []);
    t.equal(failed.headers['platform-total-results'], '0');
    const bad = await app.inject({ method: 'GET', url: `/api/backups?${admin}&status=done` });
    t.equal(bad.statusCode, 422);
    t.match(json(bad), { errors: { status: [String] } });
  });

  t.test('GET one', async (t) => {
    const res = await app.inject({ method: 'GET', url: `/api/backups/${first['o:id'] as number}?${admin}` });
    t.equal(res.statusCode, 200);
    t.same(json(res), first);
    const missing = await app.inject({ method: 'GET', url: `/api/backups/999?${admin}` });
    t.equal(missing.statusCode, 404);
    t.same(json(missing), { errors: { error: 'Backup not found.' } });
  });

  t.test('every other role and anonymous get the permission error on every endpoint', async (t) => {
    const id = first['o:id'] as number;
    const requests = [
      { method: 'GET' as const, url: '/api/backups' },
      { method: 'GET' as const, url: `/api/backups/${id}` },
      { method: 'POST' as const, url: '/api/backups' },
      { method: 'DELETE' as const, url: `/api/backups/${id}` },
    ];
    for (const role of ['editor', 'reviewer', 'author', 'researcher'] as RoleName[]) {
      const cookie = await sessionFor(app, role);
      for (const r of requests) {
        const byKey = await app.inject({ method: r.method, url: `${r.url}?${keyFor(role)}` });
        t.equal(byKey.statusCode, 403, `${role} by key: ${r.method} ${r.url}`);
        t.same(json(byKey), { errors: { error: 'Only a Global Administrator or a Supervisor may manage backups.' } });
        t.equal(
          (await app.inject({ method: r.method, url: r.url, headers: { cookie } })).statusCode,
          403,
          `${role} by session: ${r.method} ${r.url}`,
        );
      }
    }
    for (const r of requests) {
      const anonymous = await app.inject({ method: r.method, url: r.url });
      t.equal(anonymous.statusCode, 403, `anonymous: ${r.method} ${r.url}`);
      t.match(json(anonymous), { errors: { error: String } });
    }
    const wrongKey = await app.inject({
      method: 'GET',
      url: '/api/backups?key_identity=global_admin-id&key_credential=nope',
    });
    t.equal(wrongKey.statusCode, 403);
    t.equal(
      (await app.inject({ method: 'POST', url: '/api/backups', payload: { include_db: 'x' } })).statusCode,
      403,
      'permission before validation',
    );
    t.equal(
      json<Record[]>(await app.inject({ method: 'GET', url: `/api/backups?${admin}` })).length,
      2,
      'nothing was created or deleted',
    );
  });

  t.test('PUT and PATCH are not supported', async (t) => {
    for (const method of ['PUT', 'PATCH'] as const) {
      const one = await app.inject({ method, url: `/api/backups/${first['o:id'] as number}?${admin}`, payload: {} });
      t.equal(one.statusCode, 405, `${method} one`);
      t.same(json(one), { errors: { error: 'Method not allowed.' } });
      t.equal(
        (await app.inject({ method, url: `/api/backups?${admin}`, payload: {} })).statusCode,
        405,
        `${method} list`,
      );
    }
  });

  t.test('DELETE returns the deleted record and removes the archive; unknown id 404', async (t) => {
    const id = second['o:id'] as number;
    const res = await app.inject({ method: 'DELETE', url: `/api/backups/${id}?${admin}` });
    t.equal(res.statusCode, 200);
    t.same(json(res), second);
    t.notOk(existsSync(second['o:path'] as string), 'archive removed');
    t.notOk(existsSync(`${second['o:path'] as string}.sha256`), 'checksum file removed');
    t.equal((await app.inject({ method: 'GET', url: `/api/backups/${id}?${admin}` })).statusCode, 404);
    const again = await app.inject({ method: 'DELETE', url: `/api/backups/${id}?${admin}` });
    t.equal(again.statusCode, 404);
    t.same(json(again), { errors: { error: 'Backup not found.' } });
    t.equal(
      (await app.inject({ method: 'DELETE', url: `/api/backups/abc?${admin}` })).statusCode,
      422,
      'a non-integer id is a validation error',
    );
  });

  t.test('the routes are in the OpenAPI document', async (t) => {
    const doc = json<{ paths: Record }>(await app.inject({ method: 'GET', url: '/api/docs.json' }));
    const list = doc.paths['/api/backups'] as Record;
    const one = doc.paths['/api/backups/{id}'] as Record;
    t.ok(list.get && list.post, 'list and create');
    t.ok(one.get && one.delete, 'read and delete');
    t.notOk(one.put || one.patch, 'no update');
    t.same((list.post as Record).tags, ['backups']);
  });
});

t.test('retention keeps the newest BACKUP_RETENTION complete backups', async (t) => {
  const clock = new FixedClock(new Date('2026-03-04T05:06:07.000Z'));
  const { app, config } = await buildTestApp(t, {
    fixture: { users: ROLE_USERS.slice(0, 1) },
    clock,
    config: { backupRetention: 2 },
  });
  const made: Record[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await app.inject({ method: 'POST', url: `/api/backups?${admin}`, payload: { include_api: false } });
    t.equal(res.statusCode, 201);
    made.push(json<Record>(res));
    const kept = json<Record[]>(await app.inject({ method: 'GET', url: `/api/backups?${admin}` })).map(
      (r) => r['o:id'],
    );
    t.same(
      kept,
      made
        .slice(-2)
        .reverse()
        .map((r) => r['o:id']),
      `after backup ${i + 1}`,
    );
  }
  for (const old of made.slice(0, 2))
    t.notOk(existsSync(old['o:path'] as string), `archive of ${old['o:id'] as number} removed`);
  for (const kept of made.slice(2))
    t.ok(existsSync(kept['o:path'] as string), `archive of ${kept['o:id'] as number} kept`);

  // A failed backup is neither counted nor removed: block backup 5's temporary file with a folder.
  mkdirSync(join(config.dataDir, 'backups', 'backup-5-20260304-050607.zip.partial', 'in-the-way'), { recursive: true });
  const failing = await app.inject({ method: 'POST', url: `/api/backups?${admin}`, payload: { include_api: false } });
  t.equal(failing.statusCode, 500, 'backup 5 fails');
  const next = await app.inject({ method: 'POST', url: `/api/backups?${admin}`, payload: { include_api: false } });
  t.equal(next.statusCode, 201, 'backup 6 completes');
  const list = json<Record[]>(await app.inject({ method: 'GET', url: `/api/backups?${admin}` }));
  t.same(
    list.map((r) => [r['o:id'], r['o:status']]),
    [
      [6, 'complete'],
      [5, 'failed'],
      [4, 'complete'],
    ],
    'the two newest complete backups and the failed one remain',
  );
});

t.test('a backup that cannot be written is kept as failed with a clear error', async (t) => {
  const { app, config } = await buildTestApp(t, { fixture: { users: ROLE_USERS.slice(0, 1) } });
  writeFileSync(join(config.dataDir, 'backups'), 'a file where the backups folder should be');
  const res = await app.inject({ method: 'POST', url: `/api/backups?${admin}` });
  t.equal(res.statusCode, 500);
  const body = json<{ errors: { error: string } }>(res);
  t.equal(body.errors.error, 'Backup failed: The backup folder cannot be used: something else is in its place.');
  t.notMatch(res.body, config.dataDir, 'no server path in the error');
  const list = json<Record[]>(await app.inject({ method: 'GET', url: `/api/backups?${admin}` }));
  t.equal(list.length, 1);
  t.match(list[0], {
    'o:status': 'failed',
    'o:size': 0,
    'o:checksum': null,
    'o:error': 'The backup folder cannot be used: something else is in its place.',
  });
  t.same(json(await app.inject({ method: 'GET', url: `/api/backups?${admin}&status=failed` })), list);
  const removed = await app.inject({ method: 'DELETE', url: `/api/backups/${list[0]['o:id'] as number}?${admin}` });
  t.equal(removed.statusCode, 200, 'a failed record can be deleted');
});
