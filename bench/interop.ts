import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { UNLIMITED_CHATBOT, waitForIndexOutbox } from './content-server.js';
import { BENCH_ADMIN, BENCH_SITE, tempDataDir } from './datasets.js';
import { EnglishGenerator } from './english.js';
import type { BenchOptions } from './options.js';
import { scaled } from './options.js';
import {
  cpuMicrosOf,
  EMBEDDED_ENV,
  memoryOf,
  runScript,
  sleep,
  startAppServer,
  type RunningProcess,
} from './processes.js';
import { figure, type BenchResult, type Figure } from './report.js';
import { median, percentile, round } from './stats.js';

/**
 * The interop benchmark (module platform): what viewers and aggregators read, on the real server
 * (`npm start`, embedded defaults). The IIIF Presentation manifest of one public item with 1,000
 * image media, built in full on every request and answered 304 on its ETag; a whole OAI-PMH
 * ListRecords harvest of 50,000 public items (pages of 100, resumption tokens followed to the
 * empty one) with the server's RSS sampled meanwhile; GetRecord. No peer: no OAI-PMH or IIIF
 * Presentation server ships offline to measure beside it.
 */

const MB = 2 ** 20;
/** Canvases of the manifest: not scaled, the target is about this size. */
const CANVASES = 1000;
const MANIFEST_ITEM = 1;
const MANIFEST_COLD_LIMIT_MS = 20;
const MANIFEST_304_LIMIT_MS = 2;
const HARVEST_RATE_LIMIT = 5000;
const HARVEST_RSS_LIMIT_MB = 50;
/** The server's page size (routes/oai/oai-pmh.ts). */
const OAI_PAGE = 100;
const RSS_SAMPLE_MS = 20;
const REQUEST_TIMEOUT_MS = 120_000;
const DERIVATIVES_TIMEOUT_MS = 1_800_000;
const INDEX_TIMEOUT_MS = 3_600_000;
/** The share of a core the server may still use, between requests, once its background work is done. */
const QUIET_SHARE = 0.2;
const QUIET_TIMEOUT_MS = 600_000;
/** OAI_REPOSITORY_IDENTIFIER's default when BASE_URL's host is an address (docs/INTEROPERABILITY.md). */
const REPOSITORY = 'localhost.localdomain';
const RIGHTS = 'http://creativecommons.org/licenses/by/4.0/';
const NO_PEER = 'none: no OAI-PMH or IIIF Presentation server ships offline to measure beside';

// ---------------------------------------------------------------------------------------------
// The data: one item with 1,000 images (one small JPEG named 1,000 times), the rest text only

/** A 320 x 240 JPEG with some texture, so it is a photograph to the ingest and the derivative worker. */
async function smallJpeg(file: string): Promise<void> {
  const [width, height] = [320, 240];
  const pixels = Buffer.alloc(width * height * 3);
  let s = 12345;
  for (let i = 0; i < pixels.length; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    const x = Math.floor(i / 3) % width;
    pixels[i] = (x + (s & 63) + (i % 3) * 40) & 255;
  }
  await sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 80 })
    .toFile(file);
}

/** The fixture (docs/fixtures.md): the admin, a site, `items` public items; item 1 has 1,000 media, all of `image`. */
function interopFixture(items: number, image: string): object {
  const english = new EnglishGenerator(48);
  const records = Array.from({ length: items }, (_, i) => {
    const id = i + 1;
    return {
      id,
      title: `${english.title()}, ${1400 + ((i * 37) % 600)}`,
      description: english.description(40 + (i % 30)),
      site_ids: [1],
      is_public: true,
      rights: RIGHTS,
      ...(id === MANIFEST_ITEM
        ? {
            media: Array.from({ length: CANVASES }, (_, n) => ({
              id: n + 1,
              title: `Page ${n + 1}`,
              is_public: true,
              file: image,
            })),
          }
        : {}),
    };
  });
  return {
    users: [BENCH_ADMIN],
    sites: [BENCH_SITE],
    items: records,
  };
}

/** Imports the fixture through `npm run import` (bin/import.ts); answers the seconds it took. */
async function importData(dataDir: string, items: number): Promise<number> {
  const folder = join(dataDir, 'interop-fixture');
  mkdirSync(folder, { recursive: true });
  try {
    await smallJpeg(join(folder, 'page.jpg'));
    const fixture = join(folder, 'fixture.json');
    writeFileSync(fixture, JSON.stringify(interopFixture(items, 'page.jpg')));
    const began = performance.now();
    await runScript('bin/import.ts', [fixture], { ...EMBEDDED_ENV, DATA_DIR: dataDir });
    return (performance.now() - began) / 1000;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Requests: one keep-alive connection, one request at a time

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** From the request's start to the body's last byte. */
  ms: number;
}

function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const req = httpRequest(url, { agent, headers, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('error', reject);
      res.once('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          ms: performance.now() - began,
        }),
      );
    });
    req.once('timeout', () => req.destroy(new Error(`GET ${url}: no answer in ${REQUEST_TIMEOUT_MS} ms`)));
    req.once('error', reject);
    req.end();
  });
}

function fail(url: string, answer: Answer, why: string): never {
  throw new Error(`GET ${url} ${why} (${answer.status}): ${answer.body.toString('utf8', 0, 300)}`);
}

interface Batch {
  ms: number[];
  /** Server CPU (every thread, user + system) per request, ms. */
  cpuMs: number;
}

/** `count` requests one after the other, each checked by `check`; the server's CPU over the batch divided by them. */
async function sequential(
  server: RunningProcess,
  count: number,
  ask: (n: number) => { path: string; headers?: Record<string, string> },
  check: (answer: Answer, url: string, n: number) => void,
): Promise<Batch> {
  const ms: number[] = [];
  const cpuBefore = cpuMicrosOf(server.pid);
  for (let n = 0; n < count; n++) {
    const { path, headers } = ask(n);
    const url = `${server.url}${path}`;
    const answer = await get(url, headers);
    check(answer, url, n);
    ms.push(answer.ms);
  }
  return { ms, cpuMs: (cpuMicrosOf(server.pid) - cpuBefore) / 1000 / Math.max(1, count) };
}

// ---------------------------------------------------------------------------------------------
// The manifest

const MANIFEST_PATH = `/iiif/3/item/${MANIFEST_ITEM}/manifest`;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface ManifestState {
  canvases: number;
  /** Canvases with their width and height and a painting annotation. */
  wellFormed: number;
  withThumbnail: number;
  etag: string;
  bytes: number;
}

async function manifestState(url: string): Promise<ManifestState> {
  const answer = await get(`${url}${MANIFEST_PATH}`);
  if (answer.status !== 200) fail(`${url}${MANIFEST_PATH}`, answer, 'did not answer the manifest');
  const etag = answer.headers.etag;
  if (typeof etag !== 'string') fail(`${url}${MANIFEST_PATH}`, answer, 'has no ETag');
  const document: unknown = JSON.parse(answer.body.toString('utf8'));
  if (!isRecord(document) || document.type !== 'Manifest' || !Array.isArray(document.items))
    throw new Error(`${MANIFEST_PATH} is not a Manifest with items`);
  const canvases = document.items.filter((c): c is Record<string, unknown> => isRecord(c) && c.type === 'Canvas');
  const wellFormed = canvases.filter(
    (c) =>
      typeof c.width === 'number' &&
      c.width > 0 &&
      typeof c.height === 'number' &&
      c.height > 0 &&
      Array.isArray(c.items) &&
      c.items.length === 1,
  ).length;
  return {
    canvases: canvases.length,
    wellFormed,
    withThumbnail: canvases.filter((c) => Array.isArray(c.thumbnail)).length,
    etag,
    bytes: answer.body.length,
  };
}

/**
 * Waits until the derivative worker has made every image's thumbnails (each changes the manifest)
 * and the manifest has stopped changing; then checks it has its 1,000 canvases. Answers the
 * seconds waited and the manifest as measured.
 */
async function settledManifest(url: string): Promise<{ seconds: number; state: ManifestState }> {
  const began = performance.now();
  let state = await manifestState(url);
  while (state.withThumbnail < state.canvases || state.canvases < CANVASES) {
    if (performance.now() - began > DERIVATIVES_TIMEOUT_MS)
      throw new Error(
        `the manifest had ${state.withThumbnail} of ${state.canvases} canvases with thumbnails after ${DERIVATIVES_TIMEOUT_MS / 1000} s`,
      );
    await sleep(1000);
    state = await manifestState(url);
  }
  const seconds = (performance.now() - began) / 1000;
  if (state.canvases !== CANVASES || state.wellFormed !== CANVASES)
    throw new Error(`the manifest has ${state.canvases} canvases (${state.wellFormed} well formed), not ${CANVASES}`);
  return { seconds, state };
}

/** Fresh requests, no If-None-Match: the whole document built and sent each time. */
function manifestCold(server: RunningProcess, expected: ManifestState, count: number): Promise<Batch> {
  return sequential(
    server,
    count,
    () => ({ path: MANIFEST_PATH }),
    (answer, url) => {
      if (answer.status !== 200) fail(url, answer, 'did not answer 200');
      if (answer.headers.etag !== expected.etag) fail(url, answer, `changed its ETag (${answer.headers.etag})`);
      if (answer.body.length !== expected.bytes) fail(url, answer, `answered ${answer.body.length} bytes`);
    },
  );
}

/** The current ETag in If-None-Match: 304, no body. */
function manifestNotModified(server: RunningProcess, expected: ManifestState, count: number): Promise<Batch> {
  return sequential(
    server,
    count,
    () => ({ path: MANIFEST_PATH, headers: { 'If-None-Match': expected.etag } }),
    (answer, url) => {
      if (answer.status !== 304 || answer.body.length !== 0) fail(url, answer, 'did not answer 304 without a body');
    },
  );
}

// ---------------------------------------------------------------------------------------------
// OAI-PMH

const identifierOf = (itemId: number) => `oai:${REPOSITORY}:${itemId}`;
const HEADER = /<header( status="deleted")?><identifier>([^<]*)<\/identifier>/g;
const TOKEN = /<resumptionToken([^>]*?)(?:\/>|>([^<]*)<\/resumptionToken>)/;
const LIST_SIZE = /completeListSize="(\d+)"/;

interface Harvest {
  records: number;
  pages: number;
  seconds: number;
  cpuMsPerPage: number;
  pageMs: number[];
  rssBefore: number;
  rssPeak: number;
  rssAfter: number;
  hwm: boolean;
  bytes: number;
}

/** Resets the process's peak RSS (VmHWM) so it measures from now; false where the kernel refuses. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * A whole ListRecords harvest from the first request to the empty resumption token, the server's
 * RSS read every 20 ms meanwhile (and VmHWM, reset before, for a peak between two samples).
 * Fails unless it brought exactly `expected` distinct identifiers, none deleted, none twice.
 */
async function harvest(server: RunningProcess, expected: number): Promise<Harvest> {
  const pid = server.pid;
  const rssBefore = memoryOf(pid).rss;
  const hwm = resetPeak(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, memoryOf(pid).rss);
  }, RSS_SAMPLE_MS);
  const seen = new Set<string>();
  const pageMs: number[] = [];
  let records = 0;
  let bytes = 0;
  const cpuBefore = cpuMicrosOf(pid);
  const began = performance.now();
  try {
    let query = 'verb=ListRecords&metadataPrefix=oai_dc';
    for (;;) {
      const url = `${server.url}/oai-pmh?${query}`;
      const answer = await get(url);
      pageMs.push(answer.ms);
      bytes += answer.body.length;
      const xml = answer.body.toString('utf8');
      if (answer.status !== 200 || xml.includes('<error')) fail(url, answer, 'answered an error');
      let onPage = 0;
      for (const match of xml.matchAll(HEADER)) {
        if (match[1]) throw new Error(`${match[2]} is a deleted record`);
        seen.add(match[2]);
        onPage++;
      }
      if (onPage > OAI_PAGE) throw new Error(`a page held ${onPage} records`);
      records += onPage;
      const token = TOKEN.exec(xml);
      if (token) {
        const size = LIST_SIZE.exec(token[1])?.[1];
        if (Number(size) !== expected) throw new Error(`completeListSize ${size}, not ${expected}`);
      }
      const next = token?.[2] ?? '';
      if (next === '') break;
      query = `verb=ListRecords&resumptionToken=${encodeURIComponent(next)}`;
    }
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - began) / 1000;
  const cpuMs = (cpuMicrosOf(pid) - cpuBefore) / 1000;
  const after = memoryOf(pid);
  rssPeak = Math.max(rssPeak, after.rss, hwm ? after.peak : 0);
  if (records !== expected || seen.size !== expected)
    throw new Error(`the harvest brought ${records} records, ${seen.size} distinct identifiers, not ${expected}`);
  for (let id = 1; id <= expected; id++)
    if (!seen.has(identifierOf(id))) throw new Error(`the harvest missed ${identifierOf(id)}`);
  return {
    records,
    pages: pageMs.length,
    seconds,
    cpuMsPerPage: cpuMs / pageMs.length,
    pageMs,
    rssBefore,
    rssPeak,
    rssAfter: after.rss,
    hwm,
    bytes,
  };
}

/** GetRecord of `ids` one after the other, each checked to be the record asked for. */
function getRecords(server: RunningProcess, ids: readonly number[]): Promise<Batch> {
  return sequential(
    server,
    ids.length,
    (n) => ({
      path: `/oai-pmh?verb=GetRecord&metadataPrefix=oai_dc&identifier=${encodeURIComponent(identifierOf(ids[n]))}`,
    }),
    (answer, url, n) => {
      const xml = answer.body.toString('utf8');
      if (
        answer.status !== 200 ||
        xml.includes('<error') ||
        !xml.includes('<GetRecord>') ||
        !xml.includes(`<identifier>${identifierOf(ids[n])}</identifier>`)
      )
        fail(url, answer, 'did not answer the record');
    },
  );
}

/**
 * Waits until the server uses under 20% of a core over 2 s (the derivative worker, the chatbot
 * and any catch-up done; an idle server under --cpu-prof uses 12%), so the CPU figures are the
 * requests'. Answers the share of the last 2 s.
 */
async function waitForQuiet(pid: number): Promise<number> {
  const began = performance.now();
  for (;;) {
    const before = cpuMicrosOf(pid);
    await sleep(2000);
    const share = (cpuMicrosOf(pid) - before) / 2_000_000;
    if (share < QUIET_SHARE) return share;
    if (performance.now() - began > QUIET_TIMEOUT_MS)
      throw new Error(`the server still used ${round(share * 100)}% of a core after ${QUIET_TIMEOUT_MS / 1000} s`);
  }
}

/** 1..`items` in a fixed shuffled order. */
function shuffledIds(items: number): number[] {
  const ids = Array.from({ length: items }, (_, i) => i + 1);
  let s = 4848;
  for (let i = ids.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const j = s % (i + 1);
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  return ids;
}

// ---------------------------------------------------------------------------------------------
// The benchmark

const all = (batches: readonly Batch[]) => batches.flatMap((b) => b.ms);
const p50 = (batches: readonly Batch[]) => round(percentile(all(batches), 50));
const p99 = (batches: readonly Batch[]) => round(percentile(all(batches), 99));
const cpu = (batches: readonly Batch[]) => round(median(batches.map((b) => b.cpuMs)));
const roundP50s = (batches: readonly Batch[]) => batches.map((b) => round(percentile(b.ms, 50)));

/**
 * The interop benchmark: a manifest of 1,000 canvases (cold and 304), a whole OAI-PMH harvest of
 * 50,000 records x scale, GetRecord; rounds one after the other on one server.
 */
export async function interopBenchmark(options: BenchOptions): Promise<BenchResult> {
  const items = scaled(options, 50_000, 200);
  const count = {
    cold: scaled(options, 200, 20),
    notModified: scaled(options, 1000, 100),
    getRecord: scaled(options, 500, 50),
  };
  const data = tempDataDir('interop');
  let server: RunningProcess | null = null;
  try {
    const importSeconds = await importData(data.dir, items);
    const loadBefore = loadavg();
    // The words embedder, as read, search and images run: the chatbot indexes every item at the
    // start, and the sentence model would take hours over 50,000 of them on two cores.
    server = await startAppServer(data.dir, { ...EMBEDDED_ENV, ...UNLIMITED_CHATBOT, CHATBOT_SENTENCE_MODEL: 'off' });
    const derivatives = await settledManifest(server.url);
    const indexBegan = performance.now();
    await waitForIndexOutbox(data.dir, INDEX_TIMEOUT_MS);
    const indexSeconds = (performance.now() - indexBegan) / 1000;
    const idleShare = await waitForQuiet(server.pid);
    // Nothing may have changed the manifest since: its ETag is the one measured.
    const manifest = await manifestState(server.url);
    if (manifest.etag !== derivatives.state.etag || manifest.canvases !== CANVASES)
      throw new Error('the manifest changed while the chatbot indexed');

    // A warm-up of every kind of request, and one harvest's first page.
    const ids = shuffledIds(items);
    let nextId = 0;
    const takeIds = (n: number) => {
      const taken: number[] = [];
      for (let i = 0; i < n; i++) taken.push(ids[nextId++ % ids.length]);
      return taken;
    };
    await manifestCold(server, manifest, 10);
    await manifestNotModified(server, manifest, 50);
    await getRecords(server, takeIds(20));
    const first = await get(`${server.url}/oai-pmh?verb=ListRecords&metadataPrefix=oai_dc`);
    if (first.status !== 200 || first.body.toString('utf8').includes('<error'))
      fail(`${server.url}/oai-pmh`, first, 'answered an error');

    const rounds = { cold: [] as Batch[], notModified: [] as Batch[], getRecord: [] as Batch[] };
    const harvests: Harvest[] = [];
    for (let r = 0; r < options.rounds; r++) {
      rounds.cold.push(await manifestCold(server, manifest, count.cold));
      rounds.notModified.push(await manifestNotModified(server, manifest, count.notModified));
      rounds.getRecord.push(await getRecords(server, takeIds(count.getRecord)));
      await sleep(1000);
      harvests.push(await harvest(server, items));
      process.stderr.write(
        `bench interop: round ${r + 1}: harvest ${round(items / harvests[r].seconds)} records/s, ` +
          `RSS +${round((harvests[r].rssPeak - harvests[r].rssBefore) / MB, 1)} MB\n`,
      );
    }
    const loadAfter = loadavg();

    const rate = (h: Harvest) => h.records / h.seconds;
    const growth = (h: Harvest) => (h.rssPeak - h.rssBefore) / MB;
    const pageMs = harvests.flatMap((h) => h.pageMs);
    const figures: Figure[] = [
      figure(`manifest of ${CANVASES} canvases, cold p50`, p50(rounds.cold), 'ms', {
        target: { op: '<=', value: MANIFEST_COLD_LIMIT_MS },
        rounds: roundP50s(rounds.cold),
      }),
      figure('manifest cold p99', p99(rounds.cold), 'ms'),
      figure('manifest cold CPU a request', cpu(rounds.cold), 'ms'),
      figure('manifest 304 (If-None-Match) p50', p50(rounds.notModified), 'ms', {
        target: { op: '<=', value: MANIFEST_304_LIMIT_MS },
        rounds: roundP50s(rounds.notModified),
      }),
      figure('manifest 304 p99', p99(rounds.notModified), 'ms'),
      figure('manifest 304 CPU a request', cpu(rounds.notModified), 'ms'),
      figure(`ListRecords harvest of ${items} records`, round(median(harvests.map(rate))), 'records/s', {
        target: { op: '>=', value: HARVEST_RATE_LIMIT },
        rounds: harvests.map((h) => round(rate(h))),
      }),
      figure('harvest: server RSS growth (largest round)', round(Math.max(...harvests.map(growth)), 1), 'MB', {
        target: { op: '<=', value: HARVEST_RSS_LIMIT_MB },
        rounds: harvests.map((h) => round(growth(h), 1)),
      }),
      figure('harvest: CPU a page of 100', round(median(harvests.map((h) => h.cpuMsPerPage))), 'ms', {
        rounds: harvests.map((h) => round(h.cpuMsPerPage)),
      }),
      figure('harvest: page p50', round(percentile(pageMs, 50)), 'ms'),
      figure('harvest: page p99', round(percentile(pageMs, 99)), 'ms'),
      figure('GetRecord p50', p50(rounds.getRecord), 'ms', { rounds: roundP50s(rounds.getRecord) }),
      figure('GetRecord p99', p99(rounds.getRecord), 'ms'),
      figure('GetRecord CPU a request', cpu(rounds.getRecord), 'ms'),
    ];
    return {
      name: 'interop',
      title: `IIIF manifest of ${CANVASES} canvases, OAI-PMH harvest of ${items} records, GetRecord`,
      status: 'ran',
      setup: {
        items,
        canvases: CANVASES,
        manifest_bytes: manifest.bytes,
        import_seconds: round(importSeconds, 1),
        derivatives_seconds: round(derivatives.seconds, 1),
        index_wait_seconds: round(indexSeconds, 1),
        server_idle_share_before: round(idleShare, 3),
        rounds: options.rounds,
        per_round: { ...count, harvests: 1 },
        harvest_pages: harvests[0]?.pages,
        harvest_mb: round((harvests[0]?.bytes ?? 0) / MB, 1),
        harvest_seconds: harvests.map((h) => round(h.seconds, 2)),
        rss_before_mb: harvests.map((h) => round(h.rssBefore / MB, 1)),
        rss_peak_mb: harvests.map((h) => round(h.rssPeak / MB, 1)),
        rss_after_mb: harvests.map((h) => round(h.rssAfter / MB, 1)),
        rss_sample_ms: RSS_SAMPLE_MS,
        rss_peak_from_vmhwm: harvests.every((h) => h.hwm),
        client: 'one keep-alive connection (node:http), one request at a time, in the bench process',
        chatbot: 'words embedder (CHATBOT_SENTENCE_MODEL=off)',
        peer: NO_PEER,
        load_before: loadBefore.map((l) => round(l)),
        load_after: loadAfter.map((l) => round(l)),
      },
      figures,
    };
  } finally {
    await server?.stop();
    agent.destroy();
    data.cleanup();
  }
}
