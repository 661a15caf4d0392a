import {
  closeSync,
  existsSync,
  mkdirSync,
  openAsBlob,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { parseChecked, parseCheckedOrThrow } from '../infra/checked-json.js';
import { waitForIndexOutbox } from './content-server.js';
import { BENCH_ADMIN, BENCH_SITE, keyQuery, tempDataDir } from './datasets.js';
import type { PeerManifest } from './images-peer.js';
import type { BenchOptions } from './options.js';
import { scaled } from './options.js';
import {
  cpuMicrosOf,
  EMBEDDED_ENV,
  memoryOf,
  ROOT,
  runScript,
  sleep,
  startAppServer,
  startProcess,
  type RunningProcess,
} from './processes.js';
import { figure, type BenchResult, type Figure } from './report.js';
import { median, percentile, round } from './stats.js';

/**
 * The images benchmark: the IIIF Image API and the derivative worker on a 6,000 x 4,000 JPEG and
 * a 10,000 x 8,000 TIFF, beside Samvera's iiif-processor (bench/images-peer.ts) serving the same
 * two files in the same run. Sources are made with sharp (smooth colour fields, soft-edged
 * shapes and grain, so the JPEGs are the sizes cameras write) and kept in a temp folder.
 */

const MB = 2 ** 20;
/** Bump when the generated sources change: the cache folder is named after it. */
const SOURCES_VERSION = 2;
const SOURCES_DIR = join(tmpdir(), `bench-images-v${SOURCES_VERSION}`);
const TILE = 512;
/** Tiles' x and y step: the pyramid's own tile size, so a region never repeats and still lies on its tiles. */
const TILE_STEP = 256;
const BURST = 16;
const RSS_SAMPLE_MS = 20;
const RSS_GROWTH_LIMIT_MB = 300;
const WARM_TILE_LIMIT_MS = 5;
const PHOTOS_LIMIT_S = 30;
/** The TIFF is stored uncompressed (229 MiB), as scanners write masters: above the default upload limit of 50 MB. */
const MAX_UPLOAD_BYTES = 512 * MB;
const REQUEST_TIMEOUT_MS = 180_000;
const DERIVATIVES_TIMEOUT_MS = 900_000;
/** The album of photographs: the list answers at most 100 a page. */
const PER_PAGE = 100;

const SourceFileSchema = Type.Object({
  file: Type.String(),
  width: Type.Number(),
  height: Type.Number(),
  bytes: Type.Number(),
});
type SourceFile = Static<typeof SourceFileSchema>;

/** SOURCES_DIR/sources.json: the images made by an earlier run. */
const SourcesSchema = Type.Object({
  version: Type.Number(),
  jpeg: SourceFileSchema,
  /** The TIFF measured: its IFD before the pixels. */
  tiff: SourceFileSchema,
  /** The same pixels as libvips writes them (the IFD after the pixels): only checked to be taken as an image. */
  libvipsTiff: SourceFileSchema,
  photos: Type.Array(SourceFileSchema),
});
type Sources = Static<typeof SourcesSchema>;

// ---------------------------------------------------------------------------------------------
// The source images

/** xorshift32: the same pixels on every run. */
function randomFrom(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

/** A few random colours blown up with a cubic kernel: smooth gradients across the frame. */
async function colourField(width: number, height: number, cells: number, random: () => number): Promise<Buffer> {
  const across = Math.max(2, Math.round(cells * (width / Math.max(width, height))));
  const down = Math.max(2, Math.round(cells * (height / Math.max(width, height))));
  const seeds = Buffer.alloc(across * down * 3);
  for (let i = 0; i < seeds.length; i++) seeds[i] = Math.floor(random() * 256);
  return sharp(seeds, { raw: { width: across, height: down, channels: 3 } })
    .resize(width, height, { kernel: 'cubic' })
    .raw()
    .toBuffer();
}

/** Forty translucent ellipses and tilted rectangles: the edges a photograph has. */
function shapes(width: number, height: number, random: () => number): Buffer {
  const int = (n: number) => Math.floor(n);
  const parts: string[] = [];
  for (let n = 0; n < 40; n++) {
    const fill = `rgb(${int(random() * 256)},${int(random() * 256)},${int(random() * 256)})`;
    const [x, y] = [int(random() * width), int(random() * height)];
    const [a, b] = [int((0.05 + random() * 0.2) * width), int((0.05 + random() * 0.2) * height)];
    const angle = (random() * 60 - 30).toFixed(1);
    parts.push(
      random() < 0.5
        ? `<ellipse cx="${x}" cy="${y}" rx="${a}" ry="${b}" fill="${fill}" fill-opacity="0.45"/>`
        : `<rect x="${x}" y="${y}" width="${a}" height="${b}" fill="${fill}" fill-opacity="0.45" transform="rotate(${angle} ${x} ${y})"/>`,
    );
  }
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${parts.join('')}</svg>`,
  );
}

/** RGB pixels of a made-up photograph: a colour field, shapes over it, a finer field at a quarter strength, grain (sigma 9). */
async function photographPixels(width: number, height: number, seed: number): Promise<Buffer> {
  const random = randomFrom(seed);
  const base = await sharp(await colourField(width, height, 6, random), { raw: { width, height, channels: 3 } })
    .composite([{ input: shapes(width, height, random) }])
    .removeAlpha()
    .raw()
    .toBuffer();
  const detail = await colourField(width, height, Math.round(Math.max(width, height) / 60), random);
  const grain = new Int8Array(1 << 20);
  for (let i = 0; i < grain.length; i += 2) {
    const radius = Math.sqrt(-2 * Math.log(random() || 1e-9)) * 9;
    const angle = 2 * Math.PI * random();
    grain[i] = Math.max(-127, Math.min(127, Math.round(radius * Math.cos(angle))));
    grain[i + 1] = Math.max(-127, Math.min(127, Math.round(radius * Math.sin(angle))));
  }
  const mask = grain.length - 1;
  let g = Math.floor(random() * grain.length);
  for (let i = 0; i < base.length; i++) {
    g = (g + 7) & mask;
    const value = base[i] + ((detail[i] - 128) >> 2) + grain[g];
    base[i] = value < 0 ? 0 : value > 255 ? 255 : value;
  }
  return base;
}

/**
 * Writes an uncompressed 8-bit RGB TIFF in strips of 16 rows with its IFD right after the header,
 * before the pixels, as scanner software and Photoshop lay masters out. libvips writes the IFD
 * after the pixels, past the 4,100 bytes the upload's type sniffing reads (see the README).
 */
function writeTiffIfdFirst(file: string, pixels: Buffer, width: number, height: number): void {
  const rowsPerStrip = 16;
  const strips = Math.ceil(height / rowsPerStrip);
  const SHORT = 3;
  const LONG = 4;
  const RATIONAL = 5;
  const entries = 13;
  const ifdAt = 8;
  const bitsAt = ifdAt + 2 + entries * 12 + 4;
  const xResAt = bitsAt + 6;
  const yResAt = xResAt + 8;
  const offsetsAt = yResAt + 8;
  const countsAt = offsetsAt + 4 * strips;
  const pixelsAt = countsAt + 4 * strips;
  const head = Buffer.alloc(pixelsAt);
  head.write('II', 0, 'latin1');
  head.writeUInt16LE(42, 2);
  head.writeUInt32LE(ifdAt, 4);
  head.writeUInt16LE(entries, ifdAt);
  let at = ifdAt + 2;
  const entry = (tag: number, type: number, count: number, value: number) => {
    head.writeUInt16LE(tag, at);
    head.writeUInt16LE(type, at + 2);
    head.writeUInt32LE(count, at + 4);
    if (type === SHORT && count === 1) head.writeUInt16LE(value, at + 8);
    else head.writeUInt32LE(value, at + 8);
    at += 12;
  };
  entry(256, LONG, 1, width);
  entry(257, LONG, 1, height);
  entry(258, SHORT, 3, bitsAt);
  entry(259, SHORT, 1, 1); // no compression
  entry(262, SHORT, 1, 2); // RGB
  entry(273, LONG, strips, offsetsAt);
  entry(277, SHORT, 1, 3);
  entry(278, LONG, 1, rowsPerStrip);
  entry(279, LONG, strips, countsAt);
  entry(282, RATIONAL, 1, xResAt);
  entry(283, RATIONAL, 1, yResAt);
  entry(284, SHORT, 1, 1); // chunky
  entry(296, SHORT, 1, 2); // inches
  head.writeUInt32LE(0, at); // no next IFD
  for (let i = 0; i < 3; i++) head.writeUInt16LE(8, bitsAt + 2 * i);
  for (const resAt of [xResAt, yResAt]) {
    head.writeUInt32LE(600, resAt);
    head.writeUInt32LE(1, resAt + 4);
  }
  const rowBytes = width * 3;
  for (let n = 0; n < strips; n++) {
    head.writeUInt32LE(pixelsAt + n * rowsPerStrip * rowBytes, offsetsAt + 4 * n);
    head.writeUInt32LE(Math.min(rowsPerStrip, height - n * rowsPerStrip) * rowBytes, countsAt + 4 * n);
  }
  const fd = openSync(file, 'w');
  try {
    for (const part of [head, pixels])
      for (let done = 0; done < part.length;) done += writeSync(fd, part, done, part.length - done);
  } finally {
    closeSync(fd);
  }
}

/** Checks that sharp reads back the size and a few pixels written. */
async function checkReadsBack(file: string, pixels: Buffer, width: number, height: number): Promise<void> {
  const { width: w, height: h, channels } = await sharp(file).metadata();
  if (w !== width || h !== height || channels !== 3) throw new Error(`${file} reads back as ${w} x ${h} x ${channels}`);
  const [left, top] = [Math.floor(width * 0.37), Math.floor(height * 0.61)];
  const got = await sharp(file).extract({ left, top, width: 4, height: 1 }).raw().toBuffer();
  const want = pixels.subarray((top * width + left) * 3, (top * width + left + 4) * 3);
  if (!got.equals(want)) throw new Error(`${file} reads back other pixels than written`);
}

function sourceFile(file: string, width: number, height: number): SourceFile {
  return { file, width, height, bytes: statSync(file).size };
}

/**
 * The 6,000 x 4,000 JPEG (quality 90), the 10,000 x 8,000 TIFF (uncompressed, in strips, its
 * IFD first, as a scanner's master; the same pixels as libvips lays them out beside it) and
 * `photos` 3,000 x 2,000 JPEGs (each a different window of the TIFF's pixels, every other one
 * mirrored), made once and kept in SOURCES_DIR.
 */
async function sources(photos: number): Promise<Sources> {
  const manifestFile = join(SOURCES_DIR, 'sources.json');
  const read = existsSync(manifestFile) ? parseChecked(SourcesSchema, readFileSync(manifestFile, 'utf8')) : null;
  // A file of another shape (an earlier version's, a half-written one) is made again, as a stale one is.
  if (read?.ok) {
    const kept = read.value;
    const files = [kept.jpeg, kept.tiff, kept.libvipsTiff, ...kept.photos];
    if (
      kept.version === SOURCES_VERSION &&
      kept.photos.length >= photos &&
      files.every((f) => existsSync(f.file) && statSync(f.file).size === f.bytes)
    )
      return { ...kept, photos: kept.photos.slice(0, photos) };
  }
  rmSync(SOURCES_DIR, { recursive: true, force: true });
  mkdirSync(join(SOURCES_DIR, 'photos'), { recursive: true });
  const jpegFile = join(SOURCES_DIR, 'photograph-6000x4000.jpg');
  await sharp(await photographPixels(6000, 4000, 11), { raw: { width: 6000, height: 4000, channels: 3 } })
    .jpeg({ quality: 90 })
    .toFile(jpegFile);
  const scan = { width: 10_000, height: 8000, channels: 3 } as const;
  const scanPixels = await photographPixels(scan.width, scan.height, 23);
  const tiffFile = join(SOURCES_DIR, 'scan-10000x8000.tif');
  writeTiffIfdFirst(tiffFile, scanPixels, scan.width, scan.height);
  await checkReadsBack(tiffFile, scanPixels, scan.width, scan.height);
  const libvipsTiffFile = join(SOURCES_DIR, 'scan-10000x8000-libvips.tif');
  await sharp(scanPixels, { raw: scan }).tiff({ compression: 'none' }).toFile(libvipsTiffFile);
  const made: SourceFile[] = [];
  for (let n = 0; n < Math.max(photos, 100); n++) {
    const file = join(SOURCES_DIR, 'photos', `photo-${String(n).padStart(3, '0')}.jpg`);
    const window = {
      left: (n * 683) % (scan.width - 3000),
      top: (n * 421) % (scan.height - 2000),
      width: 3000,
      height: 2000,
    };
    let image = sharp(scanPixels, { raw: scan }).extract(window);
    if (n % 2 === 1) image = image.flop();
    await image.jpeg({ quality: 90 }).toFile(file);
    made.push(sourceFile(file, 3000, 2000));
  }
  const kept: Sources = {
    version: SOURCES_VERSION,
    jpeg: sourceFile(jpegFile, 6000, 4000),
    tiff: sourceFile(tiffFile, scan.width, scan.height),
    libvipsTiff: sourceFile(libvipsTiffFile, scan.width, scan.height),
    photos: made,
  };
  writeFileSync(`${manifestFile}.part`, JSON.stringify(kept));
  renameSync(`${manifestFile}.part`, manifestFile);
  return { ...kept, photos: made.slice(0, photos) };
}

// ---------------------------------------------------------------------------------------------
// Our server: a DATA_DIR, uploads, derivatives

const ITEM_JPEG = 1;
const ITEM_TIFF = 2;
const ITEM_ALBUM = 3;

async function importFixture(dataDir: string): Promise<void> {
  const fixture = join(dataDir, 'images-fixture.json');
  writeFileSync(
    fixture,
    JSON.stringify({
      users: [BENCH_ADMIN],
      sites: [BENCH_SITE],
      items: [
        { id: ITEM_JPEG, title: 'A photograph, 6,000 x 4,000', site_ids: [1], is_public: true },
        { id: ITEM_TIFF, title: 'A scan, 10,000 x 8,000', site_ids: [1], is_public: true },
        { id: ITEM_ALBUM, title: 'An album of photographs, 3,000 x 2,000', site_ids: [1], is_public: true },
      ],
    }),
  );
  await runScript('bin/import.ts', [fixture], { ...EMBEDDED_ENV, DATA_DIR: dataDir });
  rmSync(fixture);
}

interface Uploaded {
  id: number;
  /** What the server sniffed from the bytes. */
  mediaType: string;
}

/** POST /api/media as Omeka S's multipart form (`data`, then `file[0]` streamed from disk). */
async function upload(url: string, item: number, source: SourceFile, type: string): Promise<Uploaded> {
  const form = new FormData();
  form.set('data', JSON.stringify({ 'o:item': { 'o:id': item }, 'o:ingester': 'upload' }));
  const name = source.file.slice(source.file.lastIndexOf('/') + 1);
  form.set('file[0]', await openAsBlob(source.file, { type }), name);
  const response = await fetch(`${url}/api/media?${keyQuery()}`, {
    method: 'POST',
    body: form,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST /api/media answered ${response.status}: ${text.slice(0, 500)}`);
  const media = parseCheckedOrThrow(MediaRecord, text, 'POST /api/media’s answer');
  return { id: Number(media['o:id']), mediaType: String(media['o:media_type']) };
}

const MediaRecord = Type.Record(Type.String(), Type.Unknown());
type MediaRecord = Static<typeof MediaRecord>;

function hasThumbnails(media: MediaRecord): boolean {
  const urls = media['o:thumbnail_urls'];
  return typeof urls === 'object' && urls !== null && Object.keys(urls).length > 0;
}

async function getJson<T extends TSchema>(url: string, schema: T): Promise<Static<T>> {
  const response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${text.slice(0, 500)}`);
  return parseCheckedOrThrow(schema, text, `GET ${url}’s answer`);
}

/** Polls GET /api/media/{id} every 50 ms until its `o:thumbnail_urls` are there; answers the seconds waited. */
async function waitForDerivatives(url: string, id: number): Promise<number> {
  const began = performance.now();
  while (performance.now() - began < DERIVATIVES_TIMEOUT_MS) {
    if (hasThumbnails(await getJson(`${url}/api/media/${id}?${keyQuery()}`, MediaRecord)))
      return (performance.now() - began) / 1000;
    await sleep(50);
  }
  throw new Error(`media ${id}: no derivatives after ${DERIVATIVES_TIMEOUT_MS / 1000} s`);
}

interface BigImage {
  label: string;
  source: SourceFile;
  /** Our media id. */
  id: number;
  /** The peer's IIIF id. */
  peerId: string;
  uploadSeconds: number;
  derivativeSeconds: number;
  /** Full-resolution 512 x 512 regions in a fixed shuffled order, each asked once cold. */
  tiles: string[];
}

/** Every 512 x 512 region on the 256 grid, in a fixed shuffled order (neighbours apart, as viewers spread). */
function tileRegions(width: number, height: number, seed: number): string[] {
  const regions: string[] = [];
  for (let y = 0; y + TILE <= height; y += TILE_STEP)
    for (let x = 0; x + TILE <= width; x += TILE_STEP) regions.push(`${x},${y},${TILE},${TILE}`);
  const random = randomFrom(seed);
  for (let i = regions.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [regions[i], regions[j]] = [regions[j], regions[i]];
  }
  return regions;
}

async function uploadBigImage(
  url: string,
  label: string,
  source: SourceFile,
  item: number,
  type: string,
  seed: number,
): Promise<BigImage> {
  const began = performance.now();
  const { id, mediaType } = await upload(url, item, source, type);
  const uploadSeconds = (performance.now() - began) / 1000;
  // Anything else is not an image to the server: no derivatives would ever come.
  if (mediaType !== type) throw new Error(`${label}: uploaded as ${mediaType}, not ${type}`);
  const derivativeSeconds = await waitForDerivatives(url, id);
  const peerId = source.file.slice(source.file.lastIndexOf('/') + 1);
  return {
    label,
    source,
    id,
    peerId,
    uploadSeconds,
    derivativeSeconds,
    tiles: tileRegions(source.width, source.height, seed),
  };
}

// ---------------------------------------------------------------------------------------------
// Requests, latencies and CPU

interface Side {
  name: 'ours' | 'peer';
  server: RunningProcess;
  /** The image service base of an image. */
  base(image: BigImage): string;
}

interface Batch {
  ms: number[];
  /** Server CPU (every thread, user + system) per request, ms. */
  cpuMs: number;
}

interface Expected {
  width: number;
  height: number;
}

/** GETs `url`, reads the whole body; checks the status, and an image's decoded size when `expected` is given. */
async function timedGet(url: string, expected?: Expected): Promise<number> {
  const began = performance.now();
  const response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const body = Buffer.from(await response.arrayBuffer());
  const ms = performance.now() - began;
  if (response.status !== 200)
    throw new Error(`GET ${url} answered ${response.status}: ${body.toString('utf8', 0, 300)}`);
  if (expected) {
    const { width, height } = await sharp(body).metadata();
    if (width !== expected.width || height !== expected.height)
      throw new Error(`GET ${url} answered ${width} x ${height}, not ${expected.width} x ${expected.height}`);
  }
  return ms;
}

interface Ask {
  path: string;
  /** The decoded size the answer must have (an image). */
  expected?: Expected;
}

/** The requests one after the other, each timed; the server's CPU over the batch divided by the requests. */
async function sequential(side: Side, asks: readonly Ask[]): Promise<Batch> {
  const cpuBefore = cpuMicrosOf(side.server.pid);
  const ms: number[] = [];
  for (const ask of asks) ms.push(await timedGet(`${side.server.url}${ask.path}`, ask.expected));
  return { ms, cpuMs: (cpuMicrosOf(side.server.pid) - cpuBefore) / 1000 / Math.max(1, asks.length) };
}

/** Size of `!n,n` on an image. */
function within(image: BigImage, n: number): Expected {
  const scale = Math.min(n / image.source.width, n / image.source.height);
  return { width: Math.round(image.source.width * scale), height: Math.round(image.source.height * scale) };
}

interface Burst {
  rssBefore: number;
  rssPeak: number;
  seconds: number;
  cpuMs: number;
  /** Whether VmHWM could be reset (clear_refs) and so stood in for the samples between them. */
  hwm: boolean;
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

/** 16 cold tiles at once; the server's RSS sampled every 20 ms meanwhile (and its VmHWM, reset before). */
async function tileBurst(side: Side, image: BigImage, regions: readonly string[]): Promise<Burst> {
  const pid = side.server.pid;
  const rssBefore = memoryOf(pid).rss;
  const hwm = resetPeak(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, memoryOf(pid).rss);
  }, RSS_SAMPLE_MS);
  const cpuBefore = cpuMicrosOf(pid);
  const began = performance.now();
  try {
    await Promise.all(
      regions.map((region) =>
        timedGet(`${side.server.url}${side.base(image)}/${region}/${TILE},/0/default.jpg`, {
          width: TILE,
          height: TILE,
        }),
      ),
    );
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - began) / 1000;
  const after = memoryOf(pid);
  rssPeak = Math.max(rssPeak, after.rss, hwm ? after.peak : 0);
  return { rssBefore, rssPeak, seconds, cpuMs: (cpuMicrosOf(pid) - cpuBefore) / 1000 / regions.length, hwm };
}

// ---------------------------------------------------------------------------------------------
// The 100 photographs

interface AlbumRun {
  photos: number;
  uploadSeconds: number;
  totalSeconds: number;
  cpuMsPerPhoto: number;
}

/** Media of the album with their thumbnails made, over every page of the list. */
async function albumDone(url: string, photos: number): Promise<number> {
  let done = 0;
  for (let page = 1; page <= Math.ceil(photos / PER_PAGE); page++) {
    const list = await getJson(
      `${url}/api/media?item_id=${ITEM_ALBUM}&per_page=${PER_PAGE}&page=${page}&${keyQuery()}`,
      Type.Array(MediaRecord),
    );
    done += list.filter(hasThumbnails).length;
  }
  return done;
}

/** Uploads the photographs (4 at a time) and polls the list every 250 ms until every one shows its thumbnails. */
async function album(server: RunningProcess, photos: readonly SourceFile[]): Promise<AlbumRun> {
  const cpuBefore = cpuMicrosOf(server.pid);
  const began = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < photos.length) await upload(server.url, ITEM_ALBUM, photos[next++], 'image/jpeg');
    }),
  );
  const uploadSeconds = (performance.now() - began) / 1000;
  let done = 0;
  while (performance.now() - began < DERIVATIVES_TIMEOUT_MS) {
    done = await albumDone(server.url, photos.length);
    if (done >= photos.length) break;
    await sleep(250);
  }
  const totalSeconds = (performance.now() - began) / 1000;
  if (done < photos.length)
    throw new Error(`${done} of ${photos.length} photographs had derivatives after ${round(totalSeconds)} s`);
  return {
    photos: photos.length,
    uploadSeconds,
    totalSeconds,
    cpuMsPerPhoto: (cpuMicrosOf(server.pid) - cpuBefore) / 1000 / photos.length,
  };
}

/** The peer asked the three derivatives' requests of every photograph, one at a time: what those sizes cost without a pyramid. */
async function peerDerivatives(peer: Side, photos: readonly SourceFile[]): Promise<{ seconds: number; cpuMs: number }> {
  const cpuBefore = cpuMicrosOf(peer.server.pid);
  const began = performance.now();
  for (const photo of photos) {
    const id = photo.file.slice(photo.file.lastIndexOf('/') + 1);
    for (const [region, size] of [
      ['full', '!800,800'],
      ['full', '!200,200'],
      ['square', '!200,200'],
    ])
      await timedGet(`${peer.server.url}/iiif/3/${id}/${region}/${size}/0/default.jpg`);
  }
  return {
    seconds: (performance.now() - began) / 1000,
    cpuMs: (cpuMicrosOf(peer.server.pid) - cpuBefore) / 1000 / photos.length,
  };
}

// ---------------------------------------------------------------------------------------------
// The benchmark

interface ImageRounds {
  info: Batch[];
  cold: Batch[];
  warm: Batch[];
  within: Batch[];
}

function emptyRounds(): ImageRounds {
  return { info: [], cold: [], warm: [], within: [] };
}

interface Sizes {
  info: number;
  tiles: number;
  within: number;
}

/** One round of one side on one image: info.json, cold tiles, the same tiles again, `!n,n` of the whole image. */
async function imageRound(
  side: Side,
  image: BigImage,
  into: ImageRounds,
  tiles: readonly string[],
  sizes: readonly number[],
  count: Sizes,
): Promise<void> {
  const base = side.base(image);
  into.info.push(
    await sequential(
      side,
      Array.from({ length: count.info }, () => ({ path: `${base}/info.json` })),
    ),
  );
  const square = { width: TILE, height: TILE };
  const tileAsks = tiles.map((region) => ({ path: `${base}/${region}/${TILE},/0/default.jpg`, expected: square }));
  into.cold.push(await sequential(side, tileAsks));
  into.warm.push(await sequential(side, tileAsks));
  into.within.push(
    await sequential(
      side,
      sizes.map((n) => ({ path: `${base}/full/!${n},${n}/0/default.jpg`, expected: within(image, n) })),
    ),
  );
}

const all = (batches: readonly Batch[]) => batches.flatMap((b) => b.ms);
const p50 = (batches: readonly Batch[]) => round(percentile(all(batches), 50));
const p99 = (batches: readonly Batch[]) => round(percentile(all(batches), 99));
const cpu = (batches: readonly Batch[]) => round(median(batches.map((b) => b.cpuMs)));
const roundP50s = (batches: readonly Batch[]) => batches.map((b) => round(percentile(b.ms, 50)));
const PEER = 'iiif-processor';

function imageFigures(image: BigImage, ours: ImageRounds, peer: ImageRounds, sizes: string): Figure[] {
  const vs = (value: number, unit = 'ms') => ({ baseline: { value, unit, label: PEER } });
  const cpuFigure = (what: string, o: Batch[], p: Batch[]) =>
    figure(`${what} CPU a request, ${image.label}`, cpu(o), 'ms', vs(cpu(p)));
  return [
    figure(`info.json p50, ${image.label}`, p50(ours.info), 'ms', {
      ...vs(p50(peer.info)),
      rounds: roundP50s(ours.info),
    }),
    cpuFigure('info.json', ours.info, peer.info),
    figure(`cold tile p50, ${image.label}`, p50(ours.cold), 'ms', {
      ...vs(p50(peer.cold)),
      target: { op: '<=', value: p50(peer.cold) },
      rounds: roundP50s(ours.cold),
    }),
    figure(`cold tile p99, ${image.label}`, p99(ours.cold), 'ms', vs(p99(peer.cold))),
    cpuFigure('cold tile', ours.cold, peer.cold),
    figure(`warm tile p50, ${image.label}`, p50(ours.warm), 'ms', {
      ...vs(p50(peer.warm)),
      target: { op: '<=', value: WARM_TILE_LIMIT_MS },
      rounds: roundP50s(ours.warm),
    }),
    cpuFigure('warm tile', ours.warm, peer.warm),
    figure(`full/${sizes} p50 (cold), ${image.label}`, p50(ours.within), 'ms', {
      ...vs(p50(peer.within)),
      rounds: roundP50s(ours.within),
    }),
    cpuFigure(`full/${sizes}`, ours.within, peer.within),
  ];
}

/**
 * The images benchmark (module platform): our IIIF Image API and derivative worker beside
 * iiif-processor on the same files, rounds alternating which side goes first.
 */
export async function imagesBenchmark(options: BenchOptions): Promise<BenchResult> {
  const photoCount = scaled(options, 100, 10);
  const count: Sizes = {
    info: scaled(options, 50, 10),
    tiles: scaled(options, 30, 5),
    within: scaled(options, 10, 3),
  };
  const loadBefore = loadavg();
  const madeAt = performance.now();
  const src = await sources(photoCount);
  const sourceSeconds = (performance.now() - madeAt) / 1000;
  const data = tempDataDir('images');
  const peerManifest: PeerManifest = { files: {} };
  for (const s of [src.jpeg, src.tiff, ...src.photos])
    peerManifest.files[s.file.slice(s.file.lastIndexOf('/') + 1)] = {
      path: s.file,
      width: s.width,
      height: s.height,
    };
  const manifestFile = join(data.dir, 'peer-manifest.json');
  writeFileSync(manifestFile, JSON.stringify(peerManifest));
  let server: RunningProcess | null = null;
  let peerServer: RunningProcess | null = null;
  try {
    await importFixture(data.dir);
    server = await startAppServer(data.dir, {
      ...EMBEDDED_ENV,
      CHATBOT_SENTENCE_MODEL: 'off',
      MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES),
    });
    peerServer = await startProcess('bench/images-peer.ts', [manifestFile], {}, '/health', 60_000);
    const ours: Side = { name: 'ours', server, base: (image) => `/iiif/3/image/${image.id}` };
    const peer: Side = { name: 'peer', server: peerServer, base: (image) => `/iiif/3/${image.peerId}` };

    // The designed path: tiles come from the pyramid, so both pyramids are made first (one at a time, timed).
    const images = [
      await uploadBigImage(server.url, 'JPEG 6000x4000', src.jpeg, ITEM_JPEG, 'image/jpeg', 5),
      await uploadBigImage(server.url, 'TIFF 10000x8000', src.tiff, ITEM_TIFF, 'image/tiff', 7),
    ];
    // The chatbot indexes the new media (words embedder): done before anything is timed.
    await waitForIndexOutbox(data.dir, 120_000);

    // A warm-up: each side's first answer of each kind (modules loaded, files opened), and a check of every kind.
    const used = new Map<BigImage, number>();
    const takeTiles = (image: BigImage, n: number) => {
      const from = used.get(image) ?? 0;
      if (from + n > image.tiles.length) throw new Error(`${image.label}: fewer than ${from + n} distinct tiles`);
      used.set(image, from + n);
      return image.tiles.slice(from, from + n);
    };
    let nextSize = 800;
    for (const image of images) {
      const [warmUpTile] = takeTiles(image, 1);
      for (const side of [ours, peer]) {
        await timedGet(`${side.server.url}${side.base(image)}/info.json`);
        await timedGet(`${side.server.url}${side.base(image)}/${warmUpTile}/${TILE},/0/default.jpg`);
        await timedGet(`${side.server.url}${side.base(image)}/full/!400,400/0/default.jpg`, within(image, 400));
      }
    }

    const rounds = new Map<BigImage, { ours: ImageRounds; peer: ImageRounds }>(
      images.map((image) => [image, { ours: emptyRounds(), peer: emptyRounds() }]),
    );
    const firstSize = nextSize;
    for (let r = 0; r < options.rounds; r++) {
      for (const image of images) {
        const tiles = takeTiles(image, count.tiles);
        const sizes = Array.from({ length: count.within }, () => nextSize++);
        const both = rounds.get(image);
        if (!both) throw new Error('no rounds');
        const order: [Side, ImageRounds][] = [
          [ours, both.ours],
          [peer, both.peer],
        ];
        if (r % 2 === 1) order.reverse();
        for (const [side, into] of order) await imageRound(side, image, into, tiles, sizes, count);
      }
    }
    const sizesLabel = `!${firstSize},${firstSize} to !${nextSize - 1},${nextSize - 1}`;

    // RSS under 16 concurrent cold tiles of the TIFF, each side, rounds alternating.
    const tiff = images[1];
    const bursts: { ours: Burst[]; peer: Burst[] } = { ours: [], peer: [] };
    for (let r = 0; r < options.rounds; r++) {
      const regions = takeTiles(tiff, BURST);
      const order: [Side, Burst[]][] = [
        [ours, bursts.ours],
        [peer, bursts.peer],
      ];
      if (r % 2 === 1) order.reverse();
      for (const [side, into] of order) {
        into.push(await tileBurst(side, tiff, regions));
        await sleep(1000);
      }
    }
    const growth = (b: Burst) => (b.rssPeak - b.rssBefore) / MB;
    const maxGrowth = (bs: Burst[]) => round(Math.max(...bs.map(growth)), 1);

    // The album: the photographs' derivatives, then the peer asked the same three sizes of each.
    const albumRun = await album(server, src.photos);
    const peerAlbum = await peerDerivatives(peer, src.photos);
    // Last, as it could start another pyramid: the same TIFF laid out as libvips and libtiff write it.
    const libvipsTiff = await upload(server.url, ITEM_TIFF, src.libvipsTiff, 'image/tiff');

    const loadAfter = loadavg();
    const figures: Figure[] = [];
    for (const image of images) {
      figures.push(
        figure(`derivatives made (pyramid + 3 JPEGs), ${image.label}`, round(image.derivativeSeconds, 2), 's', {
          baseline: { value: round(image.uploadSeconds, 2), unit: 's', label: 'its upload' },
        }),
      );
    }
    for (const image of images) {
      const both = rounds.get(image);
      if (both) figures.push(...imageFigures(image, both.ours, both.peer, sizesLabel));
    }
    figures.push(
      figure(`RSS growth, ${BURST} concurrent cold tiles, ${tiff.label}`, maxGrowth(bursts.ours), 'MB', {
        baseline: { value: maxGrowth(bursts.peer), unit: 'MB', label: PEER },
        target: { op: '<=', value: RSS_GROWTH_LIMIT_MB },
        rounds: bursts.ours.map((b) => round(growth(b), 1)),
      }),
      figure('RSS before the burst', round(median(bursts.ours.map((b) => b.rssBefore)) / MB, 1), 'MB', {
        baseline: { value: round(median(bursts.peer.map((b) => b.rssBefore)) / MB, 1), unit: 'MB', label: PEER },
      }),
      figure('RSS peak in the burst', round(Math.max(...bursts.ours.map((b) => b.rssPeak)) / MB, 1), 'MB', {
        baseline: { value: round(Math.max(...bursts.peer.map((b) => b.rssPeak)) / MB, 1), unit: 'MB', label: PEER },
      }),
      figure(`burst of ${BURST} tiles, wall time`, round(median(bursts.ours.map((b) => b.seconds)), 2), 's', {
        baseline: { value: round(median(bursts.peer.map((b) => b.seconds)), 2), unit: 's', label: PEER },
      }),
      figure('burst CPU a request', round(median(bursts.ours.map((b) => b.cpuMs))), 'ms', {
        baseline: { value: round(median(bursts.peer.map((b) => b.cpuMs))), unit: 'ms', label: PEER },
      }),
      figure(
        `${albumRun.photos} photographs 3000x2000: upload to every thumbnail`,
        round(albumRun.totalSeconds, 1),
        's',
        {
          target: { op: '<=', value: round((PHOTOS_LIMIT_S * albumRun.photos) / 100, 1) },
        },
      ),
      figure('photographs a second', round(albumRun.photos / albumRun.totalSeconds, 2), '/s', {
        baseline: {
          value: round(albumRun.photos / peerAlbum.seconds, 2),
          unit: '/s',
          label: `${PEER}, 3 sizes, no pyramid`,
        },
      }),
      figure(`the ${albumRun.photos} uploads alone (4 at a time)`, round(albumRun.uploadSeconds, 1), 's'),
      figure('CPU a photograph (upload and derivatives)', round(albumRun.cpuMsPerPhoto), 'ms', {
        baseline: { value: round(peerAlbum.cpuMs), unit: 'ms', label: `${PEER}, 3 sizes` },
      }),
      figure(
        'a TIFF with its IFD after the pixels (as libvips writes it) is taken as an image',
        libvipsTiff.mediaType === 'image/tiff' ? 1 : 0,
        `(${libvipsTiff.mediaType})`,
        { target: { op: '>=', value: 1 } },
      ),
    );
    return {
      name: 'images',
      title: 'IIIF images and derivatives on a 6000x4000 JPEG and a 10000x8000 TIFF, beside iiif-processor',
      status: 'ran',
      setup: {
        jpeg: { width: src.jpeg.width, height: src.jpeg.height, mb: round(src.jpeg.bytes / MB, 1) },
        tiff: {
          width: src.tiff.width,
          height: src.tiff.height,
          mb: round(src.tiff.bytes / MB, 1),
          compression: 'none',
          layout: 'IFD before the pixels',
        },
        photos: { count: src.photos.length, mb_each: round(median(src.photos.map((p) => p.bytes)) / MB, 2) },
        sources_dir: SOURCES_DIR,
        sources_seconds: round(sourceSeconds, 1),
        rounds: options.rounds,
        per_round_per_image: count,
        tile: `${TILE} x ${TILE} at full resolution, x and y on a ${TILE_STEP} grid, size ${TILE},`,
        within_sizes: sizesLabel,
        burst: BURST,
        rss_sample_ms: RSS_SAMPLE_MS,
        rss_peak_from_vmhwm: bursts.ours.every((b) => b.hwm),
        max_upload_bytes: MAX_UPLOAD_BYTES,
        chatbot: 'words embedder (CHATBOT_SENTENCE_MODEL=off)',
        peer: `${PEER} ${peerVersion()}, sharp ${peerSharpVersion()}; ours sharp ${sharp.versions.sharp}, libvips ${sharp.versions.vips}`,
        load_before: loadBefore.map((l) => round(l)),
        load_after: loadAfter.map((l) => round(l)),
      },
      figures,
    };
  } finally {
    await peerServer?.stop();
    await server?.stop();
    data.cleanup();
  }
}

function packageVersion(path: string): string {
  try {
    const read = parseChecked(Type.Object({ version: Type.Optional(Type.String()) }), readFileSync(path, 'utf8'));
    return (read.ok ? read.value.version : undefined) ?? '?';
  } catch {
    return '?';
  }
}

function peerVersion(): string {
  return packageVersion(join(ROOT, 'node_modules', 'iiif-processor', 'package.json'));
}

/** iiif-processor brings its own sharp when the project's does not satisfy it. */
function peerSharpVersion(): string {
  const own = join(ROOT, 'node_modules', 'iiif-processor', 'node_modules', 'sharp', 'package.json');
  return packageVersion(existsSync(own) ? own : join(ROOT, 'node_modules', 'sharp', 'package.json'));
}
