import { Type } from '@sinclair/typebox';
import { checkedOrThrow } from '../infra/checked-json.js';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createDeflateRaw } from 'node:zlib';
import { importAdmin, keyQuery, tempDataDir } from './datasets.js';
import type { BenchOptions } from './options.js';
import { scaled } from './options.js';
import { memoryOf, startAppServer, type RunningProcess } from './processes.js';
import { figure, type BenchResult } from './report.js';
import { alternateRounds, median, round } from './stats.js';
import { TextGenerator } from './text.js';

const MB = 2 ** 20;
const FILE_BYTES = 4 * MB;
/** How much the server's RSS may grow while archiving: streaming keeps it flat whatever the data size. */
const RSS_GROWTH_LIMIT_MB = 100;

interface MixedFiles {
  text: string[];
  images: string[];
  bytes: number;
}

/**
 * Half compressible text (.txt), half incompressible image bytes (.jpg) in DATA_DIR/files.
 * Each file repeats one generated block behind its own header: deflate's window is 32 KiB,
 * so a repeat 4 MiB apart compresses no better than fresh text.
 */
function writeMixedFiles(dataDir: string, totalBytes: number): MixedFiles {
  const folder = join(dataDir, 'files', 'bench');
  mkdirSync(folder, { recursive: true });
  const generator = new TextGenerator(5);
  let textBlock = '';
  while (textBlock.length < FILE_BYTES) textBlock += `${generator.sentence(12)}.\n`;
  const text = Buffer.from(textBlock.slice(0, FILE_BYTES));
  const image = randomBytes(FILE_BYTES);
  const perKind = Math.max(1, Math.round(totalBytes / 2 / FILE_BYTES));
  const files: MixedFiles = { text: [], images: [], bytes: 0 };
  for (let n = 0; n < perKind; n++) {
    const header = Buffer.from(`file ${n}\n`);
    const textFile = join(folder, `document-${n}.txt`);
    writeFileSync(textFile, Buffer.concat([header, text]));
    const imageFile = join(folder, `photo-${n}.jpg`);
    writeFileSync(imageFile, Buffer.concat([header, image]));
    files.text.push(textFile);
    files.images.push(imageFile);
    files.bytes += 2 * (header.length + FILE_BYTES);
  }
  return files;
}

/** The baseline: raw zlib level 1 over the text files and a plain copy of the images, into `out`. */
async function rawBaselineSeconds(files: MixedFiles, out: string): Promise<{ seconds: number; textSeconds: number }> {
  mkdirSync(out, { recursive: true });
  const began = performance.now();
  for (const [n, file] of files.text.entries()) {
    await pipeline(createReadStream(file), createDeflateRaw({ level: 1 }), createWriteStream(join(out, `t${n}`)));
  }
  const textDone = performance.now();
  for (const [n, file] of files.images.entries()) {
    await pipeline(createReadStream(file), createWriteStream(join(out, `i${n}`)));
  }
  const seconds = (performance.now() - began) / 1000;
  rmSync(out, { recursive: true, force: true });
  return { seconds, textSeconds: (textDone - began) / 1000 };
}

interface BackupRound {
  seconds: number;
  rssBefore: number;
  rssPeak: number;
  size: number;
}

/** One backup through the API, RSS sampled while it runs; the archive is deleted afterwards. */
async function backupRound(server: RunningProcess): Promise<BackupRound> {
  const rssBefore = memoryOf(server.pid).rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, memoryOf(server.pid).rss);
  }, 50);
  const began = performance.now();
  let response: Response;
  try {
    response = await fetch(`${server.url}/api/backups?${keyQuery()}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        include_db: true,
        include_files: true,
        include_themes: false,
        include_modules: false,
        include_api: false,
      }),
    });
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - began) / 1000;
  const record = checkedOrThrow(
    Type.Record(Type.String(), Type.Unknown()),
    await response.json(),
    'POST /api/backups’s answer',
  );
  if (response.status !== 201)
    throw new Error(`POST /api/backups answered ${response.status}: ${JSON.stringify(record)}`);
  const deleted = await fetch(`${server.url}/api/backups/${String(record['o:id'])}?${keyQuery()}`, {
    method: 'DELETE',
  });
  await deleted.arrayBuffer();
  return { seconds, rssBefore, rssPeak: Math.max(rssPeak, memoryOf(server.pid).rss), size: Number(record['o:size']) };
}

/**
 * 5. Backup archive throughput over 1 GB of mixed files, against raw zlib level 1 for the
 * compressible half plus a plain copy of the incompressible half; RSS growth while archiving.
 */
export async function backupBenchmark(options: BenchOptions): Promise<BenchResult> {
  const data = tempDataDir('backup');
  try {
    await importAdmin(data.dir);
    const files = writeMixedFiles(data.dir, scaled(options, 1024, 16) * MB);
    const server = await startAppServer(data.dir);
    try {
      const rounds = await alternateRounds(
        options.rounds,
        () => backupRound(server),
        () => rawBaselineSeconds(files, join(data.dir, 'raw-baseline')),
      );
      const mbytes = files.bytes / MB;
      const backupRate = median(rounds.subject.map((r) => mbytes / r.seconds));
      const rawRate = median(rounds.baseline.map((r) => mbytes / r.seconds));
      const growth = Math.max(...rounds.subject.map((r) => (r.rssPeak - r.rssBefore) / MB));
      return {
        name: 'backup',
        title: `backup archive of ${round(mbytes)} MB of mixed files`,
        status: 'ran',
        setup: {
          mbytes: round(mbytes),
          text_files: files.text.length,
          image_files: files.images.length,
          rounds: options.rounds,
          archive_mb: round(median(rounds.subject.map((r) => r.size)) / MB, 1),
        },
        figures: [
          figure('MB/s ratio', round(backupRate / rawRate, 3), 'x', {
            baseline: { value: round(rawRate, 1), unit: 'MB/s', label: 'zlib level 1 (text) + copy (images)' },
            target: { op: '>=', value: 0.8 },
          }),
          figure('archive', round(backupRate, 1), 'MB/s', {
            rounds: rounds.subject.map((r) => round(mbytes / r.seconds, 1)),
          }),
          figure(
            'zlib level 1 on text',
            round(median(rounds.baseline.map((r) => mbytes / 2 / r.textSeconds)), 1),
            'MB/s',
          ),
          figure('RSS growth while archiving', round(growth, 1), 'MB', {
            baseline: {
              value: round(median(rounds.subject.map((r) => r.rssBefore)) / MB, 1),
              unit: 'MB',
              label: 'RSS before',
            },
            target: { op: '<=', value: RSS_GROWTH_LIMIT_MB },
          }),
        ],
      };
    } finally {
      await server.stop();
    }
  } finally {
    data.cleanup();
  }
}
