import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { importFixtureFile, ROOT, runCli, startServer } from '../process.js';
import { parseOai } from '../../routes/oai/support.js';

/**
 * OAI-PMH through the real server, harvested by a harvester no one here wrote: HTTP::OAI's
 * `oai_pmh` (Debian's libhttp-oai-perl), which follows the resumption tokens itself, over the
 * example library and over a collection of several pages. Then a
 * harvest that the server's restart interrupts between two pages: the token issued before the
 * restart goes on after it, and the whole harvest has every record once.
 */

const PUBLIC_ITEMS = 230;

function fixture() {
  return {
    item_sets: [{ id: 10, title: 'Maps' }],
    items: [
      ...Array.from({ length: PUBLIC_ITEMS }, (_, i) => ({
        id: i + 1,
        title: `Item ${i + 1} & <friends> \u{1F5FA}`,
        item_set_ids: i % 2 === 0 ? [10] : [],
      })),
      { id: 999, title: 'Private', is_public: false },
    ],
  };
}

/** The identifiers `oai_pmh` harvested from `baseUrl` (its records are separated by form feeds). */
function harvestWithPerl(baseUrl: string, args: string[] = []): string[] {
  const run = spawnSync('oai_pmh', ['--metadataPrefix', 'oai_dc', ...args, `${baseUrl}/oai-pmh`], {
    encoding: 'utf8',
    env: { ...process.env, PERL_UNICODE: 'O' },
    timeout: 120_000,
  });
  if (run.error) throw new Error(`oai_pmh could not run (apt-get install libhttp-oai-perl): ${run.error.message}`);
  if (run.status !== 0) throw new Error(`oai_pmh failed (${run.status}): ${run.stderr}`);
  return run.stdout
    .split(/[\f\n]/)
    .filter((line) => line.startsWith('identifier: '))
    .map((line) => line.slice('identifier: '.length));
}

t.test('a real harvester, and a harvest across a restart', async (t) => {
  const dataDir = `${t.testdir()}/data`;
  const imported = await importFixtureFile(dataDir, fixture(), 'oai');
  t.equal(imported.code, 0, imported.stderr);
  let server = await startServer({ DATA_DIR: dataDir });
  t.teardown(() => server.stop());
  const expected = Array.from({ length: PUBLIC_ITEMS }, (_, i) => `oai:localhost.localdomain:${i + 1}`).sort();

  const all = harvestWithPerl(server.baseUrl);
  t.same([...all].sort(), expected, 'HTTP::OAI harvested every public record once, following the tokens');
  const maps = harvestWithPerl(server.baseUrl, ['--set', '10']);
  t.equal(maps.length, PUBLIC_ITEMS / 2, 'and the records of one set');

  const first = await fetch(`${server.baseUrl}/oai-pmh?verb=ListIdentifiers&metadataPrefix=oai_dc`);
  const page = parseOai(first.status, String(first.headers.get('content-type')), await first.text());
  t.equal(page.token?.completeListSize, String(PUBLIC_ITEMS));
  const token = page.token?.value ?? '';
  t.not(token, '', 'the first page has a token');
  const seen = page.texts('identifier');

  await server.stop();
  server = await startServer({ DATA_DIR: dataDir });
  let next = token;
  while (next) {
    const res = await fetch(`${server.baseUrl}/oai-pmh?verb=ListIdentifiers&resumptionToken=${next}`);
    const answer = parseOai(res.status, String(res.headers.get('content-type')), await res.text());
    t.equal(answer.error, null, 'the token outlived the restart');
    if (answer.error) break;
    seen.push(...answer.texts('identifier'));
    next = answer.token?.value ?? '';
  }
  t.same([...seen].sort(), expected, 'the interrupted harvest has every record once');
});

t.test('the example library, harvested: one record per public item', async (t) => {
  const file = join(ROOT, 'examples', 'library.json');
  const library = JSON.parse(readFileSync(file, 'utf8')) as { items: { id: number; is_public?: boolean }[] };
  const expected = library.items
    .filter((item) => item.is_public !== false)
    .map((item) => `oai:localhost.localdomain:${item.id}`)
    .sort();
  t.ok(expected.length > 0 && expected.length < library.items.length, 'it has public and private items');
  const dataDir = `${t.testdir()}/data`;
  const imported = await runCli('import.ts', [file], { DATA_DIR: dataDir });
  t.equal(imported.code, 0, imported.stderr);
  const server = await startServer({ DATA_DIR: dataDir });
  t.teardown(() => server.stop());
  t.same(harvestWithPerl(server.baseUrl).sort(), expected);
});
