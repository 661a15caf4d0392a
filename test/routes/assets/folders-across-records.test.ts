import t from 'tap';
import { buildTestApp, json, ROLE_USERS, sessionFor } from '../../helper.js';
import type { FolderJson } from './support.js';

const BASE = '/api/asset-picker/folders';
const AT_ONCE = 20;

/** The folder tree's rules with 20 writes at once (issue 22). */
t.test('folder writes at once', async (t) => {
  const { app } = await buildTestApp(t, { fixture: { users: ROLE_USERS } });
  const cookie = await sessionFor(app, 'editor');
  const create = (payload: object) => app.inject({ method: 'POST', url: BASE, headers: { cookie }, payload });
  const update = (id: number, payload: object) =>
    app.inject({ method: 'PUT', url: `${BASE}/${id}`, headers: { cookie }, payload });
  const folderOf = async (payload: object) => json<{ folder: FolderJson }>(await create(payload)).folder;

  await t.test('20 siblings created at once with one title: 20 distinct slugs', async (t) => {
    const parent = await folderOf({ title: 'Parent' });
    const created = await Promise.all(
      Array.from({ length: AT_ONCE }, () => create({ title: 'Same', parent_id: parent.id })),
    );
    t.same(
      created.map((res) => res.statusCode),
      Array(AT_ONCE).fill(201),
    );
    const slugs = created.map((res) => json<{ folder: FolderJson }>(res).folder.slug);
    t.equal(new Set(slugs).size, AT_ONCE, `distinct slugs: ${slugs.join(', ')}`);
    const listed = json<{ folder: FolderJson }>(
      await app.inject({ url: `${BASE}/${parent.id}`, headers: { cookie } }),
    ).folder.children.map((c) => c.slug);
    t.equal(new Set(listed).size, AT_ONCE, 'the tree lists them, each slug once');
  });

  await t.test('20 folders renamed at once to one title under one parent: distinct slugs', async (t) => {
    const ids = await Promise.all(
      Array.from({ length: AT_ONCE }, async (_, i) => (await folderOf({ title: `Rename me ${i}` })).id),
    );
    const renamed = await Promise.all(ids.map((id) => update(id, { title: 'Renamed' })));
    t.same(
      renamed.map((res) => res.statusCode),
      Array(AT_ONCE).fill(200),
    );
    const all = json<{ folders: FolderJson[] }>(await app.inject({ url: BASE, headers: { cookie } })).folders.filter(
      (f) => f.title === 'Renamed',
    );
    t.equal(new Set(all.map((f) => f.slug)).size, AT_ONCE, 'each slug once at the top level');
  });

  await t.test('a ring of folders each moved into the next at once: the tree keeps no cycle', async (t) => {
    const ring = await Promise.all(
      Array.from({ length: 5 }, async (_, i) => (await folderOf({ title: `Ring ${i}` })).id),
    );
    const moves = await Promise.all(ring.map((id, i) => update(id, { parent_id: ring[(i + 1) % ring.length] })));
    const codes = moves.map((res) => res.statusCode);
    t.equal(
      codes.filter((c) => c === 400).length,
      1,
      `exactly the move closing the ring is refused (${codes.join(' ')})`,
    );
    const tree = json<{ folders: FolderJson[] }>(await app.inject({ url: BASE, headers: { cookie } })).folders;
    const top = tree.find((f) => ring.includes(f.id));
    t.ok(top, 'one of the ring is still at the top, holding the others');
  });

  await t.test('a folder deleted while 10 subfolders are created in it: none outlives it', async (t) => {
    const parent = await folderOf({ title: 'Doomed' });
    const creates = Array.from({ length: 10 }, (_, i) => create({ title: `Child ${i}`, parent_id: parent.id }));
    const deleted = app.inject({ method: 'DELETE', url: `${BASE}/${parent.id}`, headers: { cookie } });
    const answers = await Promise.all(creates);
    t.equal((await deleted).statusCode, 200);
    for (const res of answers) {
      t.ok(res.statusCode === 201 || res.statusCode === 400, `a create answers 201 or 400 (${res.statusCode})`);
      if (res.statusCode === 201) {
        const id = json<{ folder: FolderJson }>(res).folder.id;
        t.equal(
          (await app.inject({ url: `${BASE}/${id}`, headers: { cookie } })).statusCode,
          404,
          `folder ${id} is gone`,
        );
      }
    }
    const tree = JSON.stringify(
      json<{ folders: FolderJson[] }>(await app.inject({ url: BASE, headers: { cookie } })).folders,
    );
    t.notMatch(tree, /Child \d/, 'no subfolder of the deleted folder is listed');
  });
});
