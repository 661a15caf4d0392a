import sharp from 'sharp';
import t from 'tap';
import { importFixtureFile, startServer } from '../process.js';
import { harvestOver, parseOai, schemaErrors, type OaiAnswer } from '../../routes/oai/support.js';
import { freshDataDir, postgresEnv, skipUnlessStack, stackEnv } from './stack.js';

/**
 * The IIIF and OAI-PMH read models on the production engines (MongoDB, the stand-in in CI, fed
 * through Kafka): a manifest, its change, a private item kept out, and an OAI-PMH harvest that
 * writes made meanwhile neither make miss nor repeat a record, a deletion harvested afterwards.
 */

const KEY = 'key_identity=ED&key_credential=ED-SECRET';
const PUBLIC_ITEMS = 130;

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
  item_sets: [{ id: 10, title: 'Maps' }],
  items: [
    ...Array.from({ length: PUBLIC_ITEMS }, (_, i) => ({ id: i + 1, title: `Item ${i + 1}`, item_set_ids: [10] })),
    { id: 500, title: 'Private', is_public: false },
  ],
};

t.test('IIIF and OAI-PMH on the production engines', { skip: skipUnlessStack() }, async (t) => {
  const dataDir = freshDataDir(t.testdir());
  // The log and the image files in PostgreSQL when it answers (a schema of the test's own).
  const env = { ...stackEnv(dataDir), ...postgresEnv(t) };
  const imported = await importFixtureFile(dataDir, fixture, 'production-interop', env);
  t.equal(imported.code, 0, `import exits 0: ${imported.stderr}`);
  const server = await startServer(env, 120_000);
  t.teardown(() => server.stop('SIGKILL'));
  const url = (path: string) => `${server.baseUrl}${path}`;

  const upload = async (item: number) => {
    const form = new FormData();
    form.append('data', JSON.stringify({ 'o:item': { 'o:id': item } }));
    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#48c' } })
      .jpeg()
      .toBuffer();
    form.append('file[0]', new Blob([photo], { type: 'image/jpeg' }), 'p.jpg');
    return (await fetch(url(`/api/media?${KEY}`), { method: 'POST', body: form })).status;
  };
  t.equal(await upload(1), 201);
  t.equal(await upload(500), 201);
  const manifest = await fetch(url('/iiif/3/item/1/manifest'));
  t.equal(manifest.status, 200, 'a manifest at once');
  const body = (await manifest.json()) as { items: { width: number; height: number }[] };
  t.same(
    body.items.map((canvas) => [canvas.width, canvas.height]),
    [[64, 48]],
  );
  t.equal((await fetch(url('/iiif/3/item/500/manifest'))).status, 404, 'a private item has none');
  const changes = await (await fetch(url('/iiif/discovery/changes/page/0'))).text();
  t.match(changes, /"type":"Create","object":\{"id":"[^"]*\/iiif\/3\/item\/1\/manifest"/);
  t.notMatch(changes, /item\/500/);

  const answers: OaiAnswer[] = [];
  const get = async (query: string) => {
    const res = await fetch(url(`/oai-pmh?${query}`));
    const answer = parseOai(res.status, String(res.headers.get('content-type')), await res.text());
    answers.push(answer);
    return answer;
  };
  let pages = 0;
  const harvested = await harvestOver(get, 'verb=ListRecords&metadataPrefix=oai_dc', async () => {
    if (++pages !== 1) return;
    const patch = await fetch(url(`/api/items/120?${KEY}`), {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ 'o:title': 'Renamed' }),
    });
    t.equal(patch.status, 200);
    t.equal((await fetch(url(`/api/items/7?${KEY}`), { method: 'DELETE' })).status, 200);
  });
  t.equal(pages, 2);
  t.same(
    harvested.headers.map(([id]) => id).sort(),
    Array.from({ length: PUBLIC_ITEMS }, (_, i) => `oai:localhost.localdomain:${i + 1}`).sort(),
    'every record once, as the collection stood when the harvest began',
  );
  t.notOk(
    harvested.headers.some(([, , deleted]) => deleted),
    'the deletion made meanwhile is not in this harvest',
  );
  const deleted = await get('verb=GetRecord&identifier=oai:localhost.localdomain:7&metadataPrefix=oai_dc');
  t.equal(deleted.elements('header')[0]?.getAttribute('status'), 'deleted', 'the next request sees the deletion');
  const later = await get(`verb=ListIdentifiers&metadataPrefix=oai_dc&from=${deleted.texts('datestamp')[0]}`);
  t.ok(later.texts('identifier').includes('oai:localhost.localdomain:7'), 'and the next incremental harvest');
  for (const answer of answers) t.equal(schemaErrors(answer.xml), '', 'valid OAI-PMH');
});
