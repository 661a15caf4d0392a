import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { parseCheckedOrThrow } from '../infra/checked-json.js';
import { UNLIMITED_CHATBOT, waitForIndexOutbox } from './content-server.js';
import { BENCH_ADMIN, BENCH_SITE, tempDataDir, writeBlogPosts } from './datasets.js';
import { EnglishGenerator } from './english.js';
import { EventLogWriter } from './event-log.js';
import type { BenchOptions } from './options.js';
import { scaled } from './options.js';
import { runScript, startAppServer, type RunningProcess } from './processes.js';

/** The museum's server environment: the words embedder (the sentence model would take hours over 110,000 resources here). */
export const MUSEUM_ENV = { ...UNLIMITED_CHATBOT, CHATBOT_SENTENCE_MODEL: 'off' };

export interface Museum {
  dataDir: string;
  items: number;
  posts: number;
  /** Item titles by item id (1..items). */
  titles: string[];
  /** Seconds the first server took to index the collection (0 when a kept museum was reused). */
  indexSeconds: number;
  cleanup(): void;
}

/** museum.json, kept beside a museum in BENCH_MUSEUM_DIR. */
const ManifestSchema = Type.Object({ items: Type.Number(), posts: Type.Number(), titles: Type.Array(Type.String()) });
type Manifest = Static<typeof ManifestSchema>;

/**
 * A museum in the words of its trade: items titled as catalogues title them (material, object,
 * place and year, so many titles share most of their words), each with one media titled after
 * its item, its description 40 to 70 words; beside them blog posts.
 */
function museumFixture(items: number): { fixture: object; titles: string[] } {
  const english = new EnglishGenerator(41);
  const titles: string[] = [];
  const records = Array.from({ length: items }, (_, i) => {
    const title = `${english.title()}, ${1400 + ((i * 37) % 600)}`;
    titles.push(title);
    return {
      id: i + 1,
      title,
      description: english.description(40 + (i % 30)),
      site_ids: [1],
      is_public: true,
      media: [{ id: i + 1, title: `${title} (photograph)`, text: english.description(30), is_public: true }],
    };
  });
  const users = [BENCH_ADMIN];
  return { fixture: { users, sites: [BENCH_SITE], items: records }, titles };
}

/**
 * A museum of `items` items (50,000 at scale 1), as many media and a fifth as many blog posts,
 * imported and indexed by a server once. BENCH_MUSEUM_DIR names a directory to build it in and
 * to reuse on later runs (its `museum.json` says what it holds): museum scale takes minutes to
 * build on a shared machine.
 */
export async function museum(options: BenchOptions): Promise<Museum> {
  const items = scaled(options, 50_000, 200);
  const posts = scaled(options, 10_000, 40);
  const kept = process.env.BENCH_MUSEUM_DIR;
  const data = kept ? { dir: kept, cleanup() {} } : tempDataDir('museum');
  const manifestFile = join(data.dir, 'museum.json');
  if (kept && existsSync(manifestFile)) {
    const manifest = parseCheckedOrThrow(ManifestSchema, readFileSync(manifestFile, 'utf8'), manifestFile);
    if (manifest.items === items && manifest.posts === posts)
      return { dataDir: data.dir, ...manifest, indexSeconds: 0, cleanup: () => {} };
    throw new Error(
      `${kept} holds a museum of ${manifest.items} items and ${manifest.posts} posts, not ${items} and ${posts}: name another BENCH_MUSEUM_DIR.`,
    );
  }
  mkdirSync(data.dir, { recursive: true });
  try {
    const { fixture, titles } = museumFixture(items);
    const fixtureFile = join(data.dir, 'museum-fixture.json');
    writeFileSync(fixtureFile, JSON.stringify(fixture));
    await runScript('bin/import.ts', [fixtureFile], { DATA_DIR: data.dir });
    rmSync(fixtureFile);
    const log = new EventLogWriter(data.dir);
    writeBlogPosts(log, posts, { contentWords: 80, words: 'english' });
    log.close();
    const began = performance.now();
    const server = await startAppServer(data.dir, MUSEUM_ENV);
    try {
      await waitForIndexOutbox(data.dir, 3_600_000);
    } finally {
      await server.stop();
    }
    const indexSeconds = (performance.now() - began) / 1000;
    writeFileSync(manifestFile, JSON.stringify({ items, posts, titles } satisfies Manifest));
    return { dataDir: data.dir, items, posts, titles, indexSeconds, cleanup: () => data.cleanup() };
  } catch (error) {
    data.cleanup();
    throw error;
  }
}

/** The museum's server, started on its DATA_DIR. */
export function startMuseumServer(museum: Museum): Promise<RunningProcess> {
  return startAppServer(museum.dataDir, MUSEUM_ENV);
}
