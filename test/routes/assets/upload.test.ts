import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { buildTestApp, json, ROLE_USERS, sessionFor } from '../../helper.js';
import { GIF, multipart, pathOf, PNG, SVG_WITH_SCRIPT, upload, uploaded, type AssetJson } from './support.js';

const BASE = '/api/asset-picker/assets';
const LIMIT = 64 * 1024;

t.test('uploads, replacement and served files', async (t) => {
  const { app, config } = await buildTestApp(t, { fixture: { users: ROLE_USERS }, config: { maxUploadBytes: LIMIT } });
  const editor = await sessionFor(app, 'editor');
  const filesRoot = join(config.dataDir, 'files');
  const storedFiles = () =>
    existsSync(join(filesRoot, 'assets')) ? readdirSync(join(filesRoot, 'assets')).sort() : [];
  const tempFiles = () => (existsSync(join(filesRoot, 'tmp')) ? readdirSync(join(filesRoot, 'tmp')) : []);
  const total = async () =>
    json<{ total: number }>(await app.inject({ method: 'GET', url: BASE, headers: { cookie: editor } })).total;
  const serve = (asset: AssetJson) => app.inject({ method: 'GET', url: pathOf(asset.canonical_url) });
  const replace = (id: number, parts: Parameters<typeof multipart>[0]) => {
    const body = multipart(parts);
    return app.inject({
      method: 'PUT',
      url: `${BASE}/${id}/replace`,
      headers: { ...body.headers, cookie: editor },
      payload: body.payload,
    });
  };

  await t.test('upload: o:name defaults to the file name; the file is served back', async (t) => {
    const res = await upload(app, editor, { filename: 'Lisbon Map.PNG', content: PNG });
    t.equal(res.statusCode, 201);
    const body = json<{ status: string; asset: AssetJson }>(res);
    t.equal(body.status, 'success');
    t.match(body.asset, {
      filename: 'Lisbon Map.PNG',
      mime_type: 'image/png',
      metadata: { title: 'Lisbon Map.PNG', alt: '' },
      folders: [],
    });
    const named = await uploaded(app, editor, 'x.png', PNG, { 'o:name': '  Harbour  ' });
    t.equal(named.metadata.title, 'Harbour', 'o:name is the title, trimmed');
    const served = await serve(body.asset);
    t.equal(served.statusCode, 200);
    t.same(served.rawPayload, PNG, 'canonical_url answers with the bytes');
    t.equal(served.headers['content-type'], 'image/png');
    t.equal(served.headers['x-content-type-options'], 'nosniff');
    t.match(String(served.headers['content-security-policy']), /sandbox/);
    t.match(String(served.headers['content-disposition']), /^inline/);
    t.equal(storedFiles().length, 2);
    t.ok(
      storedFiles().every((name) => /^[0-9a-f-]{36}\.png$/.test(name)),
      'stored under generated names',
    );
  });

  await t.test('the content type is sniffed, not taken from the name or the client', async (t) => {
    const disguised = await uploaded(app, editor, 'photo.png', '<html><script>alert(1)</script></html>');
    t.equal(disguised.mime_type, 'text/plain', 'HTML named .png is not an image');
    const served = await serve(disguised);
    t.equal(served.headers['content-type'], 'text/plain; charset=utf-8');
    const gifAsPng = await uploaded(app, editor, 'really-a-gif.png', GIF);
    t.equal(gifAsPng.mime_type, 'image/gif');
    const html = await uploaded(app, editor, 'page.html', '<!doctype html><script>alert(1)</script>');
    t.equal(html.mime_type, 'text/html');
    const servedHtml = await serve(html);
    t.equal(servedHtml.headers['content-type'], 'application/octet-stream', 'HTML is never served as HTML');
    t.match(String(servedHtml.headers['content-disposition']), /^attachment/);
    const binary = await uploaded(app, editor, 'data.bin', Buffer.from([0, 1, 2, 3, 0, 255]));
    t.equal(binary.mime_type, 'application/octet-stream');
  });

  await t.test('a served SVG cannot execute: attachment, sandboxing CSP, nosniff', async (t) => {
    const svg = await uploaded(app, editor, 'logo.svg', SVG_WITH_SCRIPT);
    t.equal(svg.mime_type, 'image/svg+xml');
    const served = await serve(svg);
    t.equal(served.statusCode, 200);
    t.equal(served.body, SVG_WITH_SCRIPT);
    t.match(String(served.headers['content-disposition']), /^attachment; filename="logo\.svg"/);
    t.equal(served.headers['content-security-policy'], "sandbox; default-src 'none'");
    t.equal(served.headers['x-content-type-options'], 'nosniff');
    const renamed = await uploaded(app, editor, 'logo.txt', SVG_WITH_SCRIPT);
    t.equal(renamed.mime_type, 'image/svg+xml', 'an SVG is known by its content, whatever its name');
    t.match(String((await serve(renamed)).headers['content-disposition']), /^attachment/);
  });

  await t.test('hostile file names never reach a path', async (t) => {
    const names: [string, string][] = [
      ['../../../etc/passwd.png', 'passwd.png'],
      ['..\\..\\windows\\evil.png', 'evil.png'],
      ['/absolute/path.png', 'path.png'],
      ['a\u0001b\u202ec.png', 'abc.png'],
      ['..', 'file'],
      ['.hidden.png', 'hidden.png'],
      [`${'x'.repeat(400)}.png`, `${'x'.repeat(196)}.png`],
    ];
    const before = storedFiles().length;
    for (const [raw, expected] of names) {
      const res = await upload(app, editor, { filename: raw, content: PNG });
      t.equal(res.statusCode, 201, raw.slice(0, 40));
      const asset = json<{ asset: AssetJson }>(res).asset;
      t.equal(asset.filename, expected, `${raw.slice(0, 40)} is kept as ${expected.slice(0, 40)}`);
      t.equal((await serve(asset)).statusCode, 200);
    }
    t.equal(storedFiles().length, before + names.length, 'every file landed in the store');
    t.notOk(existsSync(join(config.dataDir, '..', 'etc')), 'nothing escaped DATA_DIR');
    t.same(
      readdirSync(filesRoot).sort(),
      ['assets', 'tmp'],
      'DATA_DIR/files holds only the store and the temporary area',
    );
    const disposition = String(
      (await serve(await uploaded(app, editor, 'quo"te;São.png', PNG))).headers['content-disposition'],
    );
    t.match(
      disposition,
      /^inline; filename="quo_te_S_o\.png"; filename\*=UTF-8''quo%22te%3BS%C3%A3o\.png$/,
      'the header cannot be broken out of',
    );
  });

  await t.test('upload refusals leave nothing behind', async (t) => {
    const count = await total();
    const stored = storedFiles();
    const twoFiles = multipart([
      { name: 'file[0]', filename: 'a.png', content: PNG },
      { name: 'file[1]', filename: 'b.png', content: PNG },
    ]);
    const cases: [string, () => Promise<{ statusCode: number; body: string }>, number][] = [
      [
        'no file',
        () =>
          app.inject({
            method: 'POST',
            url: BASE,
            headers: { ...multipart([{ name: 'o:name', value: 'x' }]).headers, cookie: editor },
            payload: multipart([{ name: 'o:name', value: 'x' }]).payload,
          }),
        400,
      ],
      [
        'JSON instead of multipart',
        () => app.inject({ method: 'POST', url: BASE, headers: { cookie: editor }, payload: { file: 'x' } }),
        400,
      ],
      ['an empty file', () => upload(app, editor, { filename: 'empty.png', content: Buffer.alloc(0) }), 400],
      ['an unknown folder', () => upload(app, editor, { filename: 'a.png', content: PNG }, { folder_id: '999' }), 400],
      [
        'a folder id that is not a number',
        () => upload(app, editor, { filename: 'a.png', content: PNG }, { folder_id: 'maps' }),
        400,
      ],
      [
        'a file in the wrong field',
        () => upload(app, editor, { filename: 'a.png', content: PNG, field: 'attachment' }),
        400,
      ],
      [
        'a name that is too long',
        () => upload(app, editor, { filename: 'a.png', content: PNG }, { 'o:name': 'n'.repeat(256) }),
        400,
      ],
      [
        'two files',
        () =>
          app.inject({
            method: 'POST',
            url: BASE,
            headers: { ...twoFiles.headers, cookie: editor },
            payload: twoFiles.payload,
          }),
        400,
      ],
      [
        'too large',
        () => upload(app, editor, { filename: 'big.png', content: Buffer.concat([PNG, Buffer.alloc(LIMIT)]) }),
        413,
      ],
      [
        'too large with fields after the file',
        () => upload(app, editor, { filename: 'big.png', content: Buffer.alloc(LIMIT + 1, 1) }, {}),
        413,
      ],
    ];
    for (const [label, send, status] of cases) {
      const res = await send();
      t.equal(res.statusCode, status, label);
      const body = JSON.parse(res.body) as { status: string; message: string };
      t.equal(body.status, 'error', `${label}: envelope`);
      t.type(body.message, 'string');
    }
    t.match(
      json<{ message: string }>(await upload(app, editor, { filename: 'big.png', content: Buffer.alloc(LIMIT + 1) }))
        .message,
      /larger than/,
    );
    t.equal(await total(), count, 'no asset recorded');
    t.same(storedFiles(), stored, 'no file stored');
    t.same(tempFiles(), [], 'no temporary file left');
    const atLimit = await upload(app, editor, { filename: 'limit.bin', content: Buffer.alloc(LIMIT, 7) });
    t.equal(atLimit.statusCode, 201, 'a file of exactly the limit is accepted');
  });

  await t.test('replace with the same extension: same id and URL, new content, old file gone', async (t) => {
    const asset = await uploaded(app, editor, 'map.png', PNG, { 'o:name': 'Map' });
    const oldFiles = storedFiles();
    const res = await replace(asset.id, [{ name: 'file', filename: 'map-v2.PNG', content: GIF }]);
    t.equal(res.statusCode, 200);
    const replaced = json<{ status: string; asset: AssetJson }>(res);
    t.equal(replaced.status, 'success');
    t.match(replaced.asset, {
      id: asset.id,
      canonical_url: asset.canonical_url,
      filename: 'map-v2.PNG',
      mime_type: 'image/gif',
      metadata: { title: 'Map' },
    });
    const served = await serve(asset);
    t.same(served.rawPayload, GIF, 'canonical_url serves the new content');
    t.equal(served.headers['content-type'], 'image/gif');
    t.equal(storedFiles().length, oldFiles.length, 'the old file was removed');
  });

  await t.test('replace with a different extension is refused with the reason', async (t) => {
    const asset = await uploaded(app, editor, 'scan.png', PNG);
    const stored = storedFiles();
    const res = await replace(asset.id, [{ name: 'file', filename: 'scan.gif', content: GIF }]);
    t.equal(res.statusCode, 400);
    t.same(json(res), {
      status: 'error',
      message: 'The new file must keep the original extension ".png"; it has ".gif".',
    });
    const none = await replace(asset.id, [{ name: 'file', filename: 'scan', content: GIF }]);
    t.equal(none.statusCode, 400);
    t.match(json<{ message: string }>(none).message, /it has no extension/);
    t.same((await serve(asset)).rawPayload, PNG, 'the file is unchanged');
    t.same(storedFiles(), stored, 'the refused file was not kept');
    t.same(tempFiles(), []);
    t.equal((await replace(999, [{ name: 'file', filename: 'x.png', content: PNG }])).statusCode, 404);
    t.equal(
      (await replace(asset.id, [{ name: 'file', filename: 'big.png', content: Buffer.alloc(LIMIT + 1) }])).statusCode,
      413,
    );
    t.equal(
      (await replace(asset.id, [{ name: 'other', filename: 'x.png', content: PNG }])).statusCode,
      400,
      'the file must be in `file`',
    );
    t.same((await serve(asset)).rawPayload, PNG);
  });

  await t.test('file URLs: unknown, deleted and malformed names are 404', async (t) => {
    const asset = await uploaded(app, editor, 'gone.png', PNG);
    const path = pathOf(asset.canonical_url);
    t.equal(
      (await app.inject({ method: 'GET', url: path.replace('.png', '.gif') })).statusCode,
      404,
      'wrong extension',
    );
    t.equal((await app.inject({ method: 'GET', url: '/asset-files/..%2F..%2Fetc%2Fpasswd' })).statusCode, 404);
    t.equal((await app.inject({ method: 'GET', url: '/asset-files/999.png' })).statusCode, 404);
    const cached = await app.inject({
      method: 'GET',
      url: path,
      headers: { 'if-none-match': String((await serve(asset)).headers.etag) },
    });
    t.equal(cached.statusCode, 304, 'revalidation by ETag');
    const ranged = await app.inject({ method: 'GET', url: path, headers: { range: 'bytes=1-3' } });
    t.equal(ranged.statusCode, 206, 'a byte range, for players that seek');
    t.equal(ranged.headers['content-range'], `bytes 1-3/${PNG.length}`);
    t.same(ranged.rawPayload, PNG.subarray(1, 4));
    const tail = await app.inject({ method: 'GET', url: path, headers: { range: 'bytes=-4' } });
    t.same(tail.rawPayload, PNG.subarray(PNG.length - 4), 'a suffix range');
    const outside = await app.inject({ method: 'GET', url: path, headers: { range: `bytes=${PNG.length}-` } });
    t.equal(outside.statusCode, 416);
    t.equal(outside.headers['content-range'], `bytes */${PNG.length}`);
    const several = await app.inject({ method: 'GET', url: path, headers: { range: 'bytes=0-1,3-4' } });
    t.equal(several.statusCode, 200, 'several ranges: the whole file');
    t.same(several.rawPayload, PNG);
    const head = await app.inject({ method: 'HEAD', url: path });
    t.equal(head.statusCode, 200, 'HEAD answers too');
    t.equal(head.headers['content-type'], 'image/png');
    t.equal(head.body, '');
    await app.inject({ method: 'DELETE', url: `${BASE}/${asset.id}`, headers: { cookie: editor } });
    t.equal((await app.inject({ method: 'GET', url: path })).statusCode, 404, 'a deleted asset is no longer served');
  });

  await t.test('delete removes the stored file', async (t) => {
    const asset = await uploaded(app, editor, 'temp.png', PNG);
    const before = storedFiles().length;
    const res = await app.inject({
      method: 'PATCH',
      url: `${BASE}/bulk`,
      headers: { cookie: editor },
      payload: { ids: [asset.id], action: 'delete' },
    });
    t.same(json(res), { status: 'success', deleted: [asset.id] });
    t.equal(storedFiles().length, before - 1);
  });
});
