import t from 'tap';
import { buildTestApp, json, ROLE_USERS, sessionFor } from '../../helper.js';
import { PNG, uploaded, type FolderJson } from './support.js';

const BASE = '/api/asset-picker/folders';

t.test('asset library folders', async (t) => {
  const { app } = await buildTestApp(t, { fixture: { users: ROLE_USERS } });
  const editor = await sessionFor(app, 'editor');
  const author = await sessionFor(app, 'author');

  const create = (payload: object, cookie = editor) =>
    app.inject({ method: 'POST', url: BASE, headers: { cookie }, payload });
  const update = (id: number, payload: object, cookie = editor) =>
    app.inject({ method: 'PUT', url: `${BASE}/${id}`, headers: { cookie }, payload });
  const read = (id: number, cookie = editor) =>
    app.inject({ method: 'GET', url: `${BASE}/${id}`, headers: { cookie } });
  const folderOf = async (payload: object) => {
    const res = await create(payload);
    t.equal(res.statusCode, 201, `created ${JSON.stringify(payload)}`);
    return json<{ status: string; folder: FolderJson }>(res).folder;
  };

  await t.test('create answers the folder with a generated slug', async (t) => {
    const res = await create({ title: 'Old Maps' });
    t.equal(res.statusCode, 201);
    t.same(json(res), {
      status: 'success',
      folder: { id: 1, title: 'Old Maps', slug: 'old-maps', parent_id: null, asset_count: 0, children: [] },
    });
  });

  const maps = 1;
  const lisbon = await folderOf({ title: 'Lisbon', parent_id: maps });
  const porto = await folderOf({ title: 'Porto', parent_id: maps });
  const harbour = await folderOf({ title: 'Harbour', parent_id: lisbon.id });

  await t.test('slugs are unique among siblings only', async (t) => {
    const second = await folderOf({ title: 'Lisbon', parent_id: maps });
    t.equal(second.slug, 'lisbon-2', 'a sibling with the same title gets a numbered slug');
    const elsewhere = await folderOf({ title: 'Lisbon', parent_id: porto.id });
    t.equal(elsewhere.slug, 'lisbon', 'under another parent the plain slug is free');
    const top = await folderOf({ title: 'Lisbon' });
    t.equal(top.slug, 'lisbon', 'top level is its own set of siblings');
    t.equal(
      json<{ folder: FolderJson }>(await update(second.id, { title: 'Lisbon' })).folder.slug,
      'lisbon-2',
      'renaming to its own title keeps the slug',
    );
    for (const id of [second.id, elsewhere.id, top.id]) {
      t.equal(
        (await app.inject({ method: 'DELETE', url: `${BASE}/${id}`, headers: { cookie: editor } })).statusCode,
        200,
      );
    }
  });

  await t.test('GET folders answers the whole tree; GET one answers its subtree', async (t) => {
    const res = await app.inject({ method: 'GET', url: BASE, headers: { cookie: author } });
    t.equal(res.statusCode, 200);
    const body = json<{ status: string; folders: FolderJson[] }>(res);
    t.equal(body.status, 'success');
    t.same(body.folders, [
      {
        id: maps,
        title: 'Old Maps',
        slug: 'old-maps',
        parent_id: null,
        asset_count: 0,
        children: [
          {
            id: lisbon.id,
            title: 'Lisbon',
            slug: 'lisbon',
            parent_id: maps,
            asset_count: 0,
            children: [
              { id: harbour.id, title: 'Harbour', slug: 'harbour', parent_id: lisbon.id, asset_count: 0, children: [] },
            ],
          },
          { id: porto.id, title: 'Porto', slug: 'porto', parent_id: maps, asset_count: 0, children: [] },
        ],
      },
    ]);
    const one = json<{ status: string; folder: FolderJson }>(await read(lisbon.id, author));
    t.equal(one.status, 'success');
    t.same(
      one.folder.children.map((c) => c.id),
      [harbour.id],
    );
    t.equal((await read(999)).statusCode, 404);
    t.same(json(await read(999)), { status: 'error', message: 'Folder not found.' });
  });

  await t.test('rename changes title and slug; move changes the parent', async (t) => {
    const renamed = await update(porto.id, { title: 'Porto & Douro' });
    t.equal(renamed.statusCode, 200);
    t.match(json(renamed), {
      status: 'success',
      folder: { id: porto.id, title: 'Porto & Douro', slug: 'porto-and-douro', parent_id: maps },
    });
    const moved = json<{ folder: FolderJson }>(await update(porto.id, { parent_id: null }));
    t.equal(moved.folder.parent_id, null, 'parent_id null moves to the top level');
    t.equal(moved.folder.title, 'Porto & Douro', 'an absent title is kept');
    const back = json<{ folder: FolderJson }>(await update(porto.id, { parent_id: maps, title: 'Porto' }));
    t.match(back.folder, { parent_id: maps, title: 'Porto', slug: 'porto' });
    const unchanged = await update(porto.id, {});
    t.equal(unchanged.statusCode, 200, 'an empty body changes nothing');
    t.match(json(unchanged), {
      status: 'success',
      folder: { id: porto.id, parent_id: maps, title: 'Porto', slug: 'porto' },
    });
  });

  await t.test('moving a folder under itself or its own descendant is refused', async (t) => {
    for (const parent of [maps, lisbon.id, harbour.id]) {
      const res = await update(maps, { parent_id: parent });
      t.equal(res.statusCode, 400, `under ${parent}`);
      t.equal(json<{ status: string }>(res).status, 'error');
      t.match(json<{ message: string }>(res).message, /itself|subfolder/);
    }
    t.equal(json<{ folder: FolderJson }>(await read(maps)).folder.parent_id, null, 'nothing moved');
    t.equal((await update(harbour.id, { parent_id: porto.id })).statusCode, 200, 'moving sideways is fine');
    t.equal((await update(harbour.id, { parent_id: lisbon.id })).statusCode, 200);
  });

  await t.test('moving next to a sibling with the same slug keeps slugs unique', async (t) => {
    const other = await folderOf({ title: 'Harbour', parent_id: porto.id });
    const moved = json<{ folder: FolderJson }>(await update(other.id, { parent_id: lisbon.id }));
    t.equal(moved.folder.slug, 'harbour-2');
    t.equal(
      (await app.inject({ method: 'DELETE', url: `${BASE}/${other.id}`, headers: { cookie: editor } })).statusCode,
      200,
    );
  });

  await t.test('bad input gets 400 with the envelope', async (t) => {
    const cases: [string, () => Promise<{ statusCode: number; body: string }>][] = [
      ['no title', () => create({})],
      ['empty title', () => create({ title: '' })],
      ['blank title', () => create({ title: '   ' })],
      ['unknown parent', () => create({ title: 'X', parent_id: 999 })],
      ['parent 0', () => create({ title: 'X', parent_id: 0 })],
      ['parent as text', () => create({ title: 'X', parent_id: 'maps' })],
      ['move to unknown parent', () => update(lisbon.id, { parent_id: 999 })],
      ['rename to blank', () => update(lisbon.id, { title: ' ' })],
      ['bad id', () => app.inject({ method: 'GET', url: `${BASE}/abc`, headers: { cookie: editor } })],
    ];
    for (const [label, send] of cases) {
      const res = await send();
      t.equal(res.statusCode, 400, label);
      const body = JSON.parse(res.body) as { status: string; message: string };
      t.equal(body.status, 'error', `${label}: envelope`);
      t.type(body.message, 'string');
    }
    t.equal((await update(999, { title: 'X' })).statusCode, 404, 'updating an unknown folder');
    t.equal((await app.inject({ method: 'DELETE', url: `${BASE}/999`, headers: { cookie: editor } })).statusCode, 404);
  });

  await t.test('asset_count counts assets filed in the folder; deleting folders keeps their assets', async (t) => {
    const inHarbour = await uploaded(app, editor, 'harbour.png', PNG, { folder_id: String(harbour.id) });
    const inLisbon = await uploaded(app, editor, 'lisbon.png', PNG, { folder_id: String(lisbon.id) });
    t.equal(json<{ folder: FolderJson }>(await read(harbour.id)).folder.asset_count, 1);
    t.equal(json<{ folder: FolderJson }>(await read(lisbon.id)).folder.asset_count, 1, 'direct assets only');

    const res = await app.inject({ method: 'DELETE', url: `${BASE}/${lisbon.id}`, headers: { cookie: editor } });
    t.equal(res.statusCode, 200);
    t.same(json(res), { status: 'success', message: 'Folder deleted.' });
    t.equal((await read(lisbon.id)).statusCode, 404);
    t.equal((await read(harbour.id)).statusCode, 404, 'its subfolders go with it');
    for (const asset of [inHarbour, inLisbon]) {
      const got = await app.inject({
        method: 'GET',
        url: `/api/asset-picker/assets/${asset.id}`,
        headers: { cookie: editor },
      });
      t.equal(got.statusCode, 200, 'the asset is kept');
      t.same(json<{ asset: { folders: number[] } }>(got).asset.folders, [], 'and no longer filed in a deleted folder');
    }
    const tree = json<{ folders: FolderJson[] }>(
      await app.inject({ method: 'GET', url: BASE, headers: { cookie: editor } }),
    );
    t.same(
      tree.folders[0].children.map((c) => c.id),
      [porto.id],
    );
  });
});
