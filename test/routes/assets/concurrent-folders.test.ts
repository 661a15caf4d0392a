import t from 'tap';
import { buildTestApp, json, ROLE_USERS, sessionFor } from '../../helper.js';
import type { FolderJson } from './support.js';

const BASE = '/api/asset-picker/folders';

/** Folder writes that race: sibling slugs stay unique and the tree never gets a cycle. */
t.test('concurrent folder writes', async (t) => {
  const { app } = await buildTestApp(t, { fixture: { users: ROLE_USERS } });
  const cookie = await sessionFor(app, 'editor');
  const create = (payload: object) => app.inject({ method: 'POST', url: BASE, headers: { cookie }, payload });
  const update = (id: number, payload: object) =>
    app.inject({ method: 'PUT', url: `${BASE}/${id}`, headers: { cookie }, payload });

  await t.test('siblings created at once with one title get distinct slugs', async (t) => {
    const created = await Promise.all(Array.from({ length: 6 }, () => create({ title: 'Same Title' })));
    t.same(
      created.map((res) => res.statusCode),
      Array(6).fill(201),
    );
    const slugs = created.map((res) => json<{ folder: FolderJson }>(res).folder.slug);
    t.equal(new Set(slugs).size, 6, `distinct slugs: ${slugs.join(', ')}`);
  });

  await t.test('two folders moved into each other at once: one move is refused', async (t) => {
    const a = json<{ folder: FolderJson }>(await create({ title: 'A' })).folder;
    const b = json<{ folder: FolderJson }>(await create({ title: 'B' })).folder;
    const moves = await Promise.all([update(a.id, { parent_id: b.id }), update(b.id, { parent_id: a.id })]);
    t.same(moves.map((res) => res.statusCode).sort(), [200, 400], moves.map((res) => res.body).join(' | '));
    t.match(moves.find((res) => res.statusCode === 400)?.json(), {
      status: 'error',
      message: /cannot be moved into itself or one of its own subfolders/,
    });
  });
});
