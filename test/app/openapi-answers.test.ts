import t from 'tap';
import { buildTestApp, json, keyFor, ROLE_USERS, sessionFor } from '../helper.js';
import { GIF, multipart, PNG } from '../routes/assets/support.js';
import { derivativesMade, photograph } from '../routes/platform/media-support.js';
import { directoryFixture, OPEN_TOKEN } from '../routes/directory/fixture.js';
import { mediaTypeOf, OpenApiCheck, operationsOf, type OpenApiDocument } from './openapi-check.js';

/**
 * The document tells the truth about answers: every operation of the served document answers a
 * real request (its success, and where cheap an error) with a status, media type, body and headers
 * the document declares for it (test/app/openapi-check.ts). An operation the document gains
 * without a case here fails the last check, so no route slips through unchecked.
 */

const FIXTURE = {
  users: ROLE_USERS,
  sites: [{ id: 1, slug: 'main', title: 'Main site' }],
  item_sets: [{ id: 10, title: 'Maps', site_ids: [1] }],
  items: [
    {
      id: 100,
      title: 'Map of Lisbon',
      description: 'text',
      item_set_ids: [10],
      site_ids: [1],
      is_public: true,
      media: [{ id: 1000, title: 'Scan', text: 'words', is_public: true }],
    },
  ],
  site_pages: [
    {
      id: 5,
      site_id: 1,
      slug: 'about',
      title: 'About',
      is_public: true,
      layout: null,
      layout_data: {},
      blocks: [{ layout: 'html', data: { html: '<p>Hi</p>' } }],
    },
  ],
  blog: {
    categories: [{ id: 1, name: 'News', slug: 'news', description: '' }],
    posts: [
      {
        id: 1,
        title: 'Hello',
        slug: 'hello',
        excerpt: '',
        content: '<p>Hi</p>',
        status: 'published',
        author_id: 1,
        category_id: 1,
        tags: ['maps'],
        site_ids: [1],
        published_at: '2026-01-02 03:04:05',
      },
    ],
  },
  directory: directoryFixture(),
};

t.test(
  'every operation of the document answers as the document declares: status, media type, body schema, headers',
  async (t) => {
    const { app, runtime } = await buildTestApp(t, { fixture: FIXTURE });
    const doc = json<OpenApiDocument>(await app.inject({ method: 'GET', url: '/api/docs.json' }));
    const check = new OpenApiCheck(app, doc, t);
    const answer = check.answer.bind(check);
    const id = (res: { body: string }, key = 'o:id') => (JSON.parse(res.body) as Record<string, number>)[key];

    const editor = await sessionFor(app, 'editor');
    const admin = `?${keyFor('global_admin')}`;
    const researcher = `?${keyFor('researcher')}`;
    const asEditor = { cookie: editor };

    // auth: 204, the 401 of a wrong password (JSON and form bodies), a validation error.
    await answer(
      'post /login',
      { method: 'POST', url: '/login', payload: { email: 'editor@example.org', password: 'editor-pass' } },
      204,
    );
    await answer(
      'post /login',
      { method: 'POST', url: '/login', payload: { email: 'editor@example.org', password: 'wrong' } },
      401,
    );
    await answer(
      'post /login',
      {
        method: 'POST',
        url: '/login',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'email=editor%40example.org&password=wrong',
      },
      401,
    );
    await answer('post /login', { method: 'POST', url: '/login', payload: { email: '' } }, 422);
    await answer('post /logout', { method: 'POST', url: '/logout' }, 204);

    // platform: the context; every operation of each resource, with a refusal, a 404, a 304 and a 412.
    const context = await answer('get /api-context', { method: 'GET', url: '/api-context' }, 200);
    await answer(
      'get /api-context',
      { method: 'GET', url: '/api-context', headers: { 'if-none-match': String(context.headers.etag) } },
      304,
    );
    const creates: Record<string, object> = {
      sites: { 'o:slug': 'second', 'o:title': 'Second site' },
      item_sets: { 'o:title': 'Views', 'o:is_public': false, 'o:site': [{ 'o:id': 1 }] },
      items: { 'o:title': 'Globe', 'o:description': 'round', 'o:item_set': [{ 'o:id': 10 }] },
      media: { 'o:item': { 'o:id': 100 }, 'o:title': 'Back', 'o:text': 'more words' },
      site_pages: {
        'o:site': { 'o:id': 1 },
        'o:slug': 'new',
        'o:title': 'New',
        'o:layout': null,
        'o:block': [{ 'o:layout': 'html', 'o:data': { html: '<p>x</p>' } }],
      },
    };
    for (const [path, body] of Object.entries(creates)) {
      const list = await answer(`get /api/${path}`, { method: 'GET', url: `/api/${path}${admin}` }, 200);
      await answer(
        `get /api/${path}`,
        { method: 'GET', url: `/api/${path}${admin}`, headers: { 'if-none-match': String(list.headers.etag) } },
        304,
      );
      await answer(
        `get /api/${path}`,
        { method: 'GET', url: `/api/${path}?key_identity=nobody&key_credential=x` },
        403,
      );
      await answer(`post /api/${path}`, { method: 'POST', url: `/api/${path}`, payload: body }, 403);
      await answer(
        `post /api/${path}`,
        { method: 'POST', url: `/api/${path}${admin}`, payload: { 'o:site': 'x', 'o:item': 'x' } },
        422,
      );
      const made = await answer(
        `post /api/${path}`,
        { method: 'POST', url: `/api/${path}${admin}`, payload: body },
        201,
      );
      const one = `/api/${path}/${id(made)}${admin}`;
      const read = await answer(`get /api/${path}/{id}`, { method: 'GET', url: one }, 200);
      await answer(
        `get /api/${path}/{id}`,
        { method: 'GET', url: one, headers: { 'if-none-match': String(read.headers.etag) } },
        304,
      );
      await answer(`get /api/${path}/{id}`, { method: 'GET', url: `/api/${path}/999999${admin}` }, 404);
      await answer(`put /api/${path}/{id}`, { method: 'PUT', url: one, payload: { 'o:title': 'Renamed' } }, 200);
      await answer(
        `put /api/${path}/{id}`,
        { method: 'PUT', url: one, payload: { 'o:title': 'Stale' }, headers: { 'if-match': '"1"' } },
        412,
      );
      await answer(
        `patch /api/${path}/{id}`,
        { method: 'PATCH', url: one, payload: { ...body, 'o:title': 'Again' } },
        200,
      );
      await answer(
        `patch /api/${path}/{id}`,
        { method: 'PATCH', url: `/api/${path}/999999${admin}`, payload: { 'o:title': 'Nobody' } },
        404,
      );
      await answer(`delete /api/${path}/{id}`, { method: 'DELETE', url: one }, 200);
      await answer(`delete /api/${path}/{id}`, { method: 'DELETE', url: one }, 404);
    }

    // blog, native: posts and categories in full, tags read-only, comments open to anonymous writers.
    const blogCreates: Record<string, object> = {
      blog_posts: {
        title: 'Second',
        content: '<p>Two</p>',
        status: 'published',
        tags: ['maps', 'news'],
        site_ids: [1],
      },
      blog_categories: { name: 'Events', description: 'What is on' },
    };
    for (const [path, body] of Object.entries(blogCreates)) {
      const list = await answer(`get /api/${path}`, { method: 'GET', url: `/api/${path}` }, 200);
      await answer(
        `get /api/${path}`,
        { method: 'GET', url: `/api/${path}`, headers: { 'if-none-match': String(list.headers.etag) } },
        304,
      );
      await answer(`post /api/${path}`, { method: 'POST', url: `/api/${path}${researcher}`, payload: body }, 403);
      await answer(`post /api/${path}`, { method: 'POST', url: `/api/${path}${admin}`, payload: {} }, 422);
      const made = await answer(
        `post /api/${path}`,
        { method: 'POST', url: `/api/${path}${admin}`, payload: body },
        201,
      );
      const one = `/api/${path}/${id(made)}${admin}`;
      await answer(`get /api/${path}/{id}`, { method: 'GET', url: one }, 200);
      await answer(`get /api/${path}/{id}`, { method: 'GET', url: `/api/${path}/999999` }, 404);
      await answer(`put /api/${path}/{id}`, { method: 'PUT', url: one, payload: { slug: 'renamed' } }, 200);
      await answer(
        `put /api/${path}/{id}`,
        { method: 'PUT', url: one, payload: { slug: 'stale' }, headers: { 'if-match': '"1"' } },
        412,
      );
      await answer(
        `patch /api/${path}/{id}`,
        { method: 'PATCH', url: one, payload: { description: 'x', excerpt: 'x' } },
        200,
      );
      await answer(
        `patch /api/${path}/{id}`,
        { method: 'PATCH', url: `/api/${path}/${id(made)}${researcher}`, payload: {} },
        403,
      );
      await answer(`delete /api/${path}/{id}`, { method: 'DELETE', url: one }, 200);
      await answer(`delete /api/${path}/{id}`, { method: 'DELETE', url: one }, 404);
    }
    const tags = await answer('get /api/blog_tags', { method: 'GET', url: '/api/blog_tags' }, 200);
    await answer('get /api/blog_tags', { method: 'GET', url: '/api/blog_tags?per_page=many' }, 422);
    const tagId = json<{ 'o:id': number }[]>(tags)[0]['o:id'];
    await answer('get /api/blog_tags/{id}', { method: 'GET', url: `/api/blog_tags/${tagId}` }, 200);
    await answer('get /api/blog_tags/{id}', { method: 'GET', url: '/api/blog_tags/999999' }, 404);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      await answer(
        `${method.toLowerCase()} /api/blog_tags`,
        { method, url: `/api/blog_tags${admin}`, payload: {} },
        405,
      );
      await answer(
        `${method.toLowerCase()} /api/blog_tags/{id}`,
        { method, url: `/api/blog_tags/${tagId}${admin}`, payload: {} },
        405,
      );
    }
    await answer('get /api/blog_comments', { method: 'GET', url: `/api/blog_comments${admin}` }, 200);
    await answer('get /api/blog_comments', { method: 'GET', url: '/api/blog_comments?post_id=first' }, 422);
    await answer(
      'post /api/blog_comments',
      { method: 'POST', url: '/api/blog_comments', payload: { post_id: 1, author_name: 'Ann' } },
      422,
    );
    const comment = await answer(
      'post /api/blog_comments',
      {
        method: 'POST',
        url: '/api/blog_comments',
        payload: { post_id: 1, author_name: 'Ann', author_email: 'ann@example.org', body: 'Nice map.' },
      },
      201,
    );
    const oneComment = `/api/blog_comments/${id(comment)}${admin}`;
    await answer('get /api/blog_comments/{id}', { method: 'GET', url: oneComment }, 200);
    await answer('get /api/blog_comments/{id}', { method: 'GET', url: `/api/blog_comments/${id(comment)}` }, 404);
    await answer(
      'put /api/blog_comments/{id}',
      { method: 'PUT', url: oneComment, payload: { status: 'approved' } },
      200,
    );
    await answer(
      'patch /api/blog_comments/{id}',
      { method: 'PATCH', url: oneComment, payload: { status: 'spam' } },
      200,
    );
    await answer(
      'patch /api/blog_comments/{id}',
      { method: 'PATCH', url: oneComment, payload: { status: 'pending' } },
      422,
    );
    await answer(
      'delete /api/blog_comments/{id}',
      { method: 'DELETE', url: `/api/blog_comments/${id(comment)}${researcher}` },
      403,
    );
    await answer('delete /api/blog_comments/{id}', { method: 'DELETE', url: oneComment }, 200);

    // blog, legacy: session only.
    await answer('get /api/blog/posts', { method: 'GET', url: '/api/blog/posts', headers: asEditor }, 200);
    await answer('get /api/blog/posts', { method: 'GET', url: '/api/blog/posts?per_page=many' }, 422);
    await answer('get /api/blog/posts/{id}', { method: 'GET', url: '/api/blog/posts/1' }, 200);
    await answer('get /api/blog/posts/{id}', { method: 'GET', url: '/api/blog/posts/999' }, 404);
    await answer(
      'post /api/blog/posts',
      { method: 'POST', url: '/api/blog/posts', payload: { title: 'Anon', content: 'x' } },
      401,
    );
    await answer(
      'post /api/blog/posts',
      {
        method: 'POST',
        url: '/api/blog/posts',
        headers: asEditor,
        payload: { title: 'Legacy', content: '<p>x</p>', tags: 'a, b' },
      },
      201,
    );
    await answer(
      'post /api/blog/posts/{id}/comments',
      {
        method: 'POST',
        url: '/api/blog/posts/1/comments',
        payload: { author_name: 'Bo', author_email: 'bo@example.org', body: 'Hi' },
      },
      201,
    );
    await answer(
      'post /api/blog/posts/{id}/comments',
      { method: 'POST', url: '/api/blog/posts/1/comments', payload: { author_name: 'Bo' } },
      422,
    );

    // asset library: folders, an upload, its file whole, in part, revalidated, out of range, unknown.
    const folders = '/api/asset-picker/folders';
    await answer(`get ${folders}`, { method: 'GET', url: folders, headers: asEditor }, 200);
    await answer(`get ${folders}`, { method: 'GET', url: folders }, 401);
    const folder = await answer(
      `post ${folders}`,
      { method: 'POST', url: folders, headers: asEditor, payload: { title: 'Maps', parent_id: null } },
      201,
    );
    const folderId = json<{ folder: { id: number } }>(folder).folder.id;
    await answer(`get ${folders}/{id}`, { method: 'GET', url: `${folders}/${folderId}`, headers: asEditor }, 200);
    await answer(`get ${folders}/{id}`, { method: 'GET', url: `${folders}/999999`, headers: asEditor }, 404);
    await answer(
      `put ${folders}/{id}`,
      {
        method: 'PUT',
        url: `${folders}/${folderId}`,
        headers: asEditor,
        payload: { title: 'Old maps', parent_id: null },
      },
      200,
    );
    const assets = '/api/asset-picker/assets';
    const upload = multipart([
      { name: 'file[0]', filename: 'map.png', content: PNG, contentType: 'image/png' },
      { name: 'folder_id', value: String(folderId) },
    ]);
    const uploaded = await answer(
      `post ${assets}`,
      { method: 'POST', url: assets, headers: { ...upload.headers, ...asEditor }, payload: upload.payload },
      201,
    );
    const asset = json<{ asset: { id: number; canonical_url: string } }>(uploaded).asset;
    await answer(`get ${assets}`, { method: 'GET', url: `${assets}?folder_id=${folderId}`, headers: asEditor }, 200);
    await answer(`get ${assets}`, { method: 'GET', url: assets }, 401);
    await answer(`get ${assets}/{id}`, { method: 'GET', url: `${assets}/${asset.id}`, headers: asEditor }, 200);
    await answer(`get ${assets}/{id}`, { method: 'GET', url: `${assets}/999999`, headers: asEditor }, 404);
    await answer(
      `post ${assets}/{id}/usage`,
      {
        method: 'POST',
        url: `${assets}/${asset.id}/usage`,
        headers: asEditor,
        payload: { context_type: 'blog_post', context_id: 1 },
      },
      201,
    );
    await answer(
      `post ${assets}/{id}/usage`,
      {
        method: 'POST',
        url: `${assets}/999999/usage`,
        headers: asEditor,
        payload: { context_type: 'blog_post', context_id: 1 },
      },
      404,
    );
    await answer(
      `get ${assets}/{id}/usage`,
      { method: 'GET', url: `${assets}/${asset.id}/usage`, headers: asEditor },
      200,
    );
    await answer(`get ${assets}/{id}/usage`, { method: 'GET', url: `${assets}/999999/usage`, headers: asEditor }, 404);
    const samePng = multipart([{ name: 'file', filename: 'map.png', content: PNG, contentType: 'image/png' }]);
    await answer(
      `put ${assets}/{id}/replace`,
      {
        method: 'PUT',
        url: `${assets}/${asset.id}/replace`,
        headers: { ...samePng.headers, ...asEditor },
        payload: samePng.payload,
      },
      200,
    );
    const otherKind = multipart([{ name: 'file', filename: 'map.gif', content: GIF, contentType: 'image/gif' }]);
    await answer(
      `put ${assets}/{id}/replace`,
      {
        method: 'PUT',
        url: `${assets}/${asset.id}/replace`,
        headers: { ...otherKind.headers, ...asEditor },
        payload: otherKind.payload,
      },
      400,
    );
    await answer(
      `patch ${assets}/bulk`,
      { method: 'PATCH', url: `${assets}/bulk`, headers: asEditor, payload: { ids: [asset.id], alt_text: 'A map' } },
      200,
    );
    const file = new URL(asset.canonical_url).pathname;
    const whole = await answer('get /asset-files/{file}', { method: 'GET', url: file }, 200);
    t.equal(mediaTypeOf(whole), 'image/png');
    await answer('get /asset-files/{file}', { method: 'GET', url: file, headers: { range: 'bytes=0-9' } }, 206);
    await answer(
      'get /asset-files/{file}',
      { method: 'GET', url: file, headers: { 'if-none-match': String(whole.headers.etag) } },
      304,
    );
    await answer('get /asset-files/{file}', { method: 'GET', url: file, headers: { range: 'bytes=100000-' } }, 416);
    await answer('get /asset-files/{file}', { method: 'GET', url: '/asset-files/999.png' }, 404);

    // media files: a form upload (201, 413), the original, a derivative, the IIIF image service.
    const photo = await photograph(300, 200);
    const mediaForm = multipart([
      { name: 'data', value: JSON.stringify({ 'o:item': { 'o:id': 100 }, 'o:ingester': 'upload' }) },
      { name: 'file[0]', filename: 'photo.jpg', content: photo, contentType: 'image/jpeg' },
    ]);
    const withFile = await answer(
      'post /api/media',
      { method: 'POST', url: `/api/media${admin}`, headers: mediaForm.headers, payload: mediaForm.payload },
      201,
    );
    const mediaId = id(withFile);
    await derivativesMade(runtime);
    const original = `/files/original/${mediaId}.jpg`;
    const wholeOriginal = await answer('get /files/original/{file}', { method: 'GET', url: original }, 200);
    t.equal(mediaTypeOf(wholeOriginal), 'image/jpeg');
    await answer('get /files/original/{file}', { method: 'GET', url: original, headers: { range: 'bytes=0-9' } }, 206);
    await answer(
      'get /files/original/{file}',
      { method: 'GET', url: original, headers: { 'if-none-match': String(wholeOriginal.headers.etag) } },
      304,
    );
    await answer(
      'get /files/original/{file}',
      { method: 'GET', url: original, headers: { range: 'bytes=9999999-' } },
      416,
    );
    await answer('get /files/original/{file}', { method: 'GET', url: '/files/original/999.jpg' }, 404);
    const square = await answer(
      'get /files/{type}/{file}',
      { method: 'GET', url: `/files/square/${mediaId}.jpg` },
      200,
    );
    await answer(
      'get /files/{type}/{file}',
      { method: 'GET', url: `/files/square/${mediaId}.jpg`, headers: { 'if-none-match': String(square.headers.etag) } },
      304,
    );
    await answer('get /files/{type}/{file}', { method: 'GET', url: `/files/huge/${mediaId}.jpg` }, 404);
    const image = `/iiif/3/image/${mediaId}`;
    await answer('get /iiif/3/image/{id}', { method: 'GET', url: image }, 303);
    await answer('get /iiif/3/image/{id}', { method: 'GET', url: '/iiif/3/image/999' }, 404);
    const info = await answer('get /iiif/3/image/{id}/info.json', { method: 'GET', url: `${image}/info.json` }, 200);
    await answer(
      'get /iiif/3/image/{id}/info.json',
      { method: 'GET', url: `${image}/info.json`, headers: { accept: 'application/json' } },
      200,
    );
    await answer(
      'get /iiif/3/image/{id}/info.json',
      { method: 'GET', url: `${image}/info.json`, headers: { 'if-none-match': String(info.headers.etag) } },
      304,
    );
    const request = 'get /iiif/3/image/{id}/{region}/{size}/{rotation}/{file}';
    const tile = await answer(request, { method: 'GET', url: `${image}/0,0,100,100/50,/0/default.jpg` }, 200);
    await answer(request, { method: 'GET', url: `${image}/full/max/0/gray.png` }, 200);
    await answer(request, { method: 'GET', url: `${image}/full/max/0/default.webp` }, 200);
    await answer(
      request,
      {
        method: 'GET',
        url: `${image}/0,0,100,100/50,/0/default.jpg`,
        headers: { 'if-none-match': String(tile.headers.etag) },
      },
      304,
    );
    await answer(request, { method: 'GET', url: `${image}/full/max/0/nonsense.jpg` }, 400);
    await answer(request, { method: 'GET', url: `${image}/full/max/45/default.jpg` }, 501);
    await answer(request, { method: 'GET', url: '/iiif/3/image/999/full/max/0/default.jpg' }, 404);

    // IIIF Presentation: the item's manifest, its set's collection, the collection of sets.
    for (const [operation, url] of [
      ['get /iiif/3/item/{id}/manifest', '/iiif/3/item/100/manifest'],
      ['get /iiif/3/item-set/{id}/collection', '/iiif/3/item-set/10/collection'],
      ['get /iiif/3/collection', '/iiif/3/collection'],
    ]) {
      const document = await answer(operation, { method: 'GET', url }, 200);
      await answer(operation, { method: 'GET', url, headers: { accept: 'application/json' } }, 200);
      await answer(operation, { method: 'GET', url, headers: { 'if-none-match': String(document.headers.etag) } }, 304);
    }
    await answer('get /iiif/3/item/{id}/manifest', { method: 'GET', url: '/iiif/3/item/999/manifest' }, 404);
    await answer(
      'get /iiif/3/item-set/{id}/collection',
      { method: 'GET', url: '/iiif/3/item-set/999/collection' },
      404,
    );
    for (const [operation, url] of [
      ['get /iiif/discovery/changes', '/iiif/discovery/changes'],
      ['get /iiif/discovery/changes/page/{page}', '/iiif/discovery/changes/page/0'],
    ]) {
      const document = await answer(operation, { method: 'GET', url }, 200);
      await answer(operation, { method: 'GET', url, headers: { accept: 'application/json' } }, 200);
      await answer(operation, { method: 'GET', url, headers: { 'if-none-match': String(document.headers.etag) } }, 304);
    }
    await answer(
      'get /iiif/discovery/changes/page/{page}',
      { method: 'GET', url: '/iiif/discovery/changes/page/99' },
      404,
    );
    // OAI-PMH: a record, an error (both HTTP 200), a form POST, and a POST that is not a form.
    await answer('get /oai-pmh', { method: 'GET', url: '/oai-pmh?verb=ListRecords&metadataPrefix=oai_dc' }, 200);
    await answer('get /oai-pmh', { method: 'GET', url: '/oai-pmh?verb=Nonsense' }, 200);
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    await answer('post /oai-pmh', { method: 'POST', url: '/oai-pmh', headers: form, payload: 'verb=Identify' }, 200);
    await answer('post /oai-pmh', { method: 'POST', url: '/oai-pmh', payload: { verb: 'Identify' } }, 415);
    await answer(
      'post /oai-pmh',
      { method: 'POST', url: '/oai-pmh', headers: form, payload: `verb=${'x'.repeat(2_000_000)}` },
      413,
    );
    await answer(`delete ${assets}/{id}`, { method: 'DELETE', url: `${assets}/${asset.id}`, headers: asEditor }, 200);
    await answer(
      `patch ${assets}/bulk`,
      { method: 'PATCH', url: `${assets}/bulk`, headers: asEditor, payload: { ids: [asset.id], action: 'delete' } },
      404,
    );
    await answer(`delete ${folders}/{id}`, { method: 'DELETE', url: `${folders}/${folderId}`, headers: asEditor }, 200);
    await answer(`delete ${folders}/{id}`, { method: 'DELETE', url: `${folders}/${folderId}`, headers: asEditor }, 404);

    // backups: the smallest archive (nothing included), read, listed, deleted; refused below Supervisor.
    const backup = await answer(
      'post /api/backups',
      {
        method: 'POST',
        url: `/api/backups${admin}`,
        payload: {
          include_db: false,
          include_files: false,
          include_themes: false,
          include_modules: false,
          include_api: false,
        },
      },
      201,
    );
    await answer('post /api/backups', { method: 'POST', url: `/api/backups?${keyFor('editor')}`, payload: {} }, 403);
    await answer('get /api/backups', { method: 'GET', url: `/api/backups${admin}` }, 200);
    await answer('get /api/backups', { method: 'GET', url: `/api/backups?${keyFor('editor')}` }, 403);
    await answer('get /api/backups/{id}', { method: 'GET', url: `/api/backups/${id(backup)}${admin}` }, 200);
    await answer('get /api/backups/{id}', { method: 'GET', url: `/api/backups/999999${admin}` }, 404);
    const archiveUrl = `/api/backups/${id(backup)}/archive${admin}`;
    const archive = await answer('get /api/backups/{id}/archive', { method: 'GET', url: archiveUrl }, 200);
    await answer(
      'get /api/backups/{id}/archive',
      { method: 'GET', url: archiveUrl, headers: { range: 'bytes=0-9' } },
      206,
    );
    await answer(
      'get /api/backups/{id}/archive',
      { method: 'GET', url: archiveUrl, headers: { 'if-none-match': String(archive.headers.etag) } },
      304,
    );
    await answer(
      'get /api/backups/{id}/archive',
      { method: 'GET', url: archiveUrl, headers: { range: 'bytes=100000000-' } },
      416,
    );
    await answer('get /api/backups/{id}/archive', { method: 'GET', url: `/api/backups/999999/archive${admin}` }, 404);
    await answer(
      'get /api/backups/{id}/archive',
      { method: 'GET', url: `/api/backups/${id(backup)}/archive?${keyFor('editor')}` },
      403,
    );
    await answer('delete /api/backups/{id}', { method: 'DELETE', url: `/api/backups/${id(backup)}${admin}` }, 200);
    await answer('delete /api/backups/{id}', { method: 'DELETE', url: `/api/backups/${id(backup)}${admin}` }, 404);

    // page versioning: page 5 saved once more, so it has two versions to list, read, compare and revert to.
    await app.inject({ method: 'PATCH', url: `/api/site_pages/5${admin}`, payload: { 'o:title': 'About us' } });
    const versions = await answer(
      'get /api/page-versioning/{pageId}/versions',
      { method: 'GET', url: '/api/page-versioning/5/versions', headers: asEditor },
      200,
    );
    await answer(
      'get /api/page-versioning/{pageId}/versions',
      { method: 'GET', url: '/api/page-versioning/999999/versions', headers: asEditor },
      404,
    );
    const [latest, first] = json<{ data: { versions: { id: number }[] } }>(versions).data.versions;
    await answer(
      'get /api/page-versioning/version/{versionId}',
      { method: 'GET', url: `/api/page-versioning/version/${first.id}`, headers: asEditor },
      200,
    );
    await answer(
      'get /api/page-versioning/version/{versionId}',
      { method: 'GET', url: '/api/page-versioning/version/0', headers: asEditor },
      400,
    );
    await answer(
      'get /api/page-versioning/version/{versionId}/diff',
      { method: 'GET', url: `/api/page-versioning/version/${latest.id}/diff`, headers: asEditor },
      200,
    );
    await answer(
      'get /api/page-versioning/version/{versionId}/diff',
      { method: 'GET', url: '/api/page-versioning/version/999999/diff', headers: asEditor },
      404,
    );
    const reviewer = await sessionFor(app, 'reviewer');
    await answer(
      'post /api/page-versioning/version/{versionId}/revert',
      {
        method: 'POST',
        url: `/api/page-versioning/version/${first.id}/revert`,
        headers: { cookie: reviewer },
        payload: {},
      },
      403,
    );
    await answer(
      'post /api/page-versioning/version/{versionId}/revert',
      {
        method: 'POST',
        url: `/api/page-versioning/version/${first.id}/revert`,
        headers: asEditor,
        payload: { summary: 'Back' },
      },
      200,
    );

    // chatbot: preflights, a chat (JSON and event stream), a search, what patrons asked.
    const preflight = { origin: 'https://museum.example', 'access-control-request-method': 'POST' };
    await answer('options /chatbot/api/chat', { method: 'OPTIONS', url: '/chatbot/api/chat', headers: preflight }, 204);
    await answer(
      'options /chatbot/api/search',
      { method: 'OPTIONS', url: '/chatbot/api/search', headers: preflight },
      204,
    );
    await answer(
      'post /chatbot/api/chat',
      { method: 'POST', url: '/chatbot/api/chat', payload: { question: 'Where is Lisbon?' } },
      200,
    );
    await answer(
      'post /chatbot/api/chat',
      {
        method: 'POST',
        url: '/chatbot/api/chat',
        headers: { accept: 'text/event-stream' },
        payload: { question: 'Where is Lisbon?' },
      },
      200,
    );
    await answer('post /chatbot/api/chat', { method: 'POST', url: '/chatbot/api/chat', payload: {} }, 400);
    await answer(
      'post /chatbot/api/search',
      { method: 'POST', url: '/chatbot/api/search', payload: { query: 'lisbon' } },
      200,
    );
    await answer('post /chatbot/api/search', { method: 'POST', url: '/chatbot/api/search', payload: {} }, 400);
    await answer('get /api/chatbot/questions', { method: 'GET', url: `/api/chatbot/questions${admin}` }, 200);
    await answer('get /api/chatbot/questions', { method: 'GET', url: '/api/chatbot/questions' }, 401);
    await answer(
      'get /api/chatbot/questions/summary',
      { method: 'GET', url: `/api/chatbot/questions/summary${admin}` },
      200,
    );
    await answer(
      'get /api/chatbot/questions/summary',
      { method: 'GET', url: `/api/chatbot/questions/summary${researcher}` },
      403,
    );

    // directory: the token API, the patron links (HTML and JSON 404s), the admin API.
    const bearer = { authorization: `Bearer ${OPEN_TOKEN}` };
    for (const path of ['library', 'databases', 'subjects', 'types', 'lists']) {
      await answer(`get /api/v1/${path}`, { method: 'GET', url: `/api/v1/${path}`, headers: bearer }, 200);
      await answer(`get /api/v1/${path}`, { method: 'GET', url: `/api/v1/${path}` }, 401);
    }
    await answer(
      'get /api/v1/databases/{handle}',
      { method: 'GET', url: '/api/v1/databases/jstor', headers: bearer },
      200,
    );
    await answer(
      'get /api/v1/databases/{handle}',
      { method: 'GET', url: '/api/v1/databases/nope', headers: bearer },
      404,
    );
    await answer('get /api/v1/lists/{handle}', { method: 'GET', url: '/api/v1/lists/starter', headers: bearer }, 200);
    await answer('get /api/v1/lists/{handle}', { method: 'GET', url: '/api/v1/lists/nope', headers: bearer }, 404);
    await answer('get /directory/databases/{handle}', { method: 'GET', url: '/directory/databases/jstor' }, 200);
    await answer(
      'get /directory/databases/{handle}',
      { method: 'GET', url: '/directory/databases/nope', headers: { accept: 'text/html' } },
      404,
    );
    await answer(
      'get /directory/databases/{handle}',
      { method: 'GET', url: '/directory/databases/nope', headers: { accept: 'application/json' } },
      404,
    );
    await answer('get /directory/go/{handle}', { method: 'GET', url: '/directory/go/jstor' }, 302);
    await answer(
      'get /directory/go/{handle}',
      { method: 'GET', url: '/directory/go/nope', headers: { accept: 'text/html' } },
      404,
    );
    const token = await answer(
      'post /api/directory/tokens',
      { method: 'POST', url: `/api/directory/tokens${admin}`, payload: { label: 'Website' } },
      201,
    );
    await answer(
      'post /api/directory/tokens',
      { method: 'POST', url: `/api/directory/tokens?${keyFor('editor')}`, payload: {} },
      403,
    );
    await answer('get /api/directory/tokens', { method: 'GET', url: `/api/directory/tokens${admin}` }, 200);
    await answer('get /api/directory/tokens', { method: 'GET', url: `/api/directory/tokens?${keyFor('editor')}` }, 403);
    await answer(
      'delete /api/directory/tokens/{id}',
      { method: 'DELETE', url: `/api/directory/tokens/${id(token, 'id')}${admin}` },
      200,
    );
    await answer(
      'delete /api/directory/tokens/{id}',
      { method: 'DELETE', url: `/api/directory/tokens/999999${admin}` },
      404,
    );
    await answer('get /api/directory/clicks', { method: 'GET', url: `/api/directory/clicks${admin}` }, 200);
    await answer(
      'get /api/directory/clicks',
      { method: 'GET', url: `/api/directory/clicks?from=yesterday${admin.replace('?', '&')}` },
      422,
    );
    await answer('get /api/directory/library', { method: 'GET', url: `/api/directory/library${admin}` }, 200);
    await answer(
      'get /api/directory/library',
      { method: 'GET', url: `/api/directory/library?${keyFor('editor')}` },
      403,
    );
    await answer(
      'patch /api/directory/library',
      { method: 'PATCH', url: `/api/directory/library${admin}`, payload: { name: 'Town Library' } },
      200,
    );
    await answer(
      'patch /api/directory/library',
      { method: 'PATCH', url: `/api/directory/library${admin}`, payload: { brand_color: 'red!' } },
      422,
    );
    await answer(
      'patch /api/directory/databases/{handle}',
      { method: 'PATCH', url: `/api/directory/databases/jstor${admin}`, payload: { featured: false } },
      200,
    );
    await answer(
      'patch /api/directory/databases/{handle}',
      { method: 'PATCH', url: `/api/directory/databases/nope${admin}`, payload: { featured: false } },
      404,
    );

    // widgets and operations.
    await answer('get /widget.js', { method: 'GET', url: '/widget.js' }, 200);
    await answer('get /chat-widget.js', { method: 'GET', url: '/chat-widget.js' }, 200);
    await answer('get /health', { method: 'GET', url: '/health' }, 200);

    const operations = operationsOf(doc);
    t.same(
      operations.filter((operation) => !check.exercised.has(operation)),
      [],
      `each of the ${operations.length} operations of the document answers a checked request`,
    );
  },
);
