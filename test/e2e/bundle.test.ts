import { existsSync } from 'node:fs';
import sharp from 'sharp';
import t from 'tap';
import { importFixtureFile, SERVER_BUNDLE, startServer } from './process.js';

/**
 * The bundle `npm start` runs (dist/bin/serve.js, built by `npm run build`, which `npm ci` runs):
 * the other end-to-end tests start the sources under tsx, so a package bundled that must stay
 * outside it (a native addon, one reading files beside itself) or a thread script not found
 * from the bundle's place would break only `npm start`. This starts the bundle and goes through
 * the parts that load such code: the read models and the text index, the vector index and its
 * first pass (usearch), the commit thread, serializers built on first use, the API reference.
 */

const fixture = {
  users: [
    {
      id: 1,
      email: 'editor@example.org',
      name: 'Ed',
      role: 'editor',
      password: 'editor-pass',
      api_keys: [{ identity: 'ED', credential: 'ED-SECRET' }],
    },
  ],
  sites: [{ id: 1, slug: 'main', title: 'Main' }],
  items: [{ id: 1, title: 'Portrait of a sailor' }],
  blog: {
    posts: [
      {
        id: 1,
        title: 'Harbour maps',
        slug: 'harbour-maps',
        excerpt: '',
        content: '<p>Charts of the old harbour of Lisbon.</p>',
        status: 'published',
        author_id: 1,
        category_id: null,
        tags: [],
        site_ids: [1],
        published_at: '2020-01-02 03:04:05',
      },
    ],
  },
};

t.test(
  'npm start runs the bundle: it starts, reads, searches, writes and stops',
  { skip: existsSync(SERVER_BUNDLE) ? false : `no ${SERVER_BUNDLE}: run npm run build` },
  async (t) => {
    const dataDir = t.testdir();
    const imported = await importFixtureFile(dataDir, fixture, 'bundle-fixture');
    t.equal(imported.code, 0, `import exits 0: ${imported.stderr}`);
    const server = await startServer({ DATA_DIR: dataDir, CHATBOT_SENTENCE_MODEL: 'off' }, 60_000, 'bundle');
    t.teardown(() => server.stop('SIGKILL'));
    const base = server.baseUrl;

    const list = await fetch(`${base}/api/blog_posts?search=HARBOUR`);
    t.equal(list.status, 200);
    t.same(
      ((await list.json()) as { 'o:id': number }[]).map((post) => post['o:id']),
      [1],
      'the list and its text search',
    );

    // The chatbot indexes the post after start: ask until it is found.
    let found: { resource_type: string; resource_id: number }[] = [];
    for (let tries = 0; tries < 100 && found.length === 0; tries++) {
      const search = await fetch(`${base}/chatbot/api/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'charts of the harbour' }),
      });
      t.equal(search.status, 200, 'the chatbot search answers');
      found = ((await search.json()) as { results: typeof found }).results;
      if (found.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    t.same(
      found[0] && [found[0].resource_type, found[0].resource_id],
      ['blog_post', 1],
      'the vector index finds the post',
    );

    const created = await fetch(`${base}/api/blog_posts?key_identity=ED&key_credential=ED-SECRET`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Tide tables', status: 'published' }),
    });
    t.equal(created.status, 201, 'a write goes through the commit thread and the projections');
    t.equal(((await created.json()) as { 'o:title': string })['o:title'], 'Tide tables');

    // A media with an image: sharp reads its size at upload, the worker makes its derivatives.
    const form = new FormData();
    form.append('data', JSON.stringify({ 'o:item': { 'o:id': 1 } }));
    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#369' } })
      .jpeg()
      .toBuffer();
    form.append('file[0]', new Blob([photo], { type: 'image/jpeg' }), 'photo.jpg');
    const media = await fetch(`${base}/api/media?key_identity=ED&key_credential=ED-SECRET`, {
      method: 'POST',
      body: form,
    });
    t.equal(media.status, 201, 'a media with its file');
    const mediaId = ((await media.json()) as { 'o:id': number })['o:id'];
    let thumbnails: Record<string, string> = {};
    for (let tries = 0; tries < 100 && !thumbnails.square; tries++) {
      const read = await fetch(`${base}/api/media/${mediaId}`);
      thumbnails = ((await read.json()) as { 'o:thumbnail_urls': Record<string, string> })['o:thumbnail_urls'];
      if (!thumbnails.square) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    t.ok(thumbnails.square, 'its derivatives are made');
    const tile = await fetch(`${base}/iiif/3/image/${mediaId}/0,0,32,24/16,/0/default.jpg`);
    t.equal(tile.status, 200, 'the image service renders a region');
    t.equal((await sharp(Buffer.from(await tile.arrayBuffer())).metadata()).width, 16);

    const reference = await fetch(`${base}/api/docs.json`);
    t.equal(reference.status, 200);
    t.match(await reference.json(), { openapi: String }, 'the API reference');

    await server.stop('SIGTERM');
    t.equal(server.child.exitCode, 0, 'it stops cleanly');
  },
);
