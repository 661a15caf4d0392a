import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { LocalFileAreas } from '../../infra/file-storage/local.js';
import type { FileStorage, PendingFile } from '../../infra/file-storage/port.js';
import { CHUNK_BYTES, PostgresFileAreas } from '../../infra/file-storage/postgres.js';
import { dropSchema, freshSchema } from './event-store/postgres-schemas.js';
import { readAll } from './file-storage/bytes.js';

interface Context {
  testdir(): string;
  teardown(fn: () => unknown): void;
}

/** One test's storage, and how many partial uploads it holds (temporary files, pending rows). */
interface Subject {
  storage: FileStorage;
  partialUploads(): Promise<number>;
}

type Factory = (t: Context) => Promise<Subject>;

/** A postgres:// URL of a database the tests may create schemas in (.ci/run sets it when PostgreSQL answers). */
const PG_EVENTSTORE_URL = process.env.PG_EVENTSTORE_URL;

/** Bytes whose every offset holds a value of its own kind: a shifted or misplaced chunk shows. */
function patterned(start: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i++) {
    const at = start + i;
    bytes[i] = (at * 31 + Math.floor(at / 251)) & 0xff;
  }
  return bytes;
}

async function stored(storage: FileStorage, content: Buffer, extension = 'bin'): Promise<PendingFile> {
  const pending = await storage.receive(Readable.from([content]), extension);
  await pending.commit();
  return pending;
}

function sha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

function isCallable(value: unknown): value is () => void {
  return typeof value === 'function';
}

/**
 * The bytes of live buffers after a full collection: what a storage holds at that moment, not
 * the garbage it made. V8 hands out its collector when asked for it before it is looked up.
 */
function liveBufferBytes(): number {
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('gc');
  if (!isCallable(gc)) throw new Error('no gc');
  // Twice: the first one's finalizers free the buffers' memory, which the second one sees.
  gc();
  gc();
  return process.memoryUsage().arrayBuffers;
}

/** The contract every FileStorage adapter keeps. */
function fileStorageContract(name: string, factory: Factory | null, skip?: string): void {
  t.test(name, skip ? { skip } : {}, async (t) => {
    const make = factory as Factory;

    t.test('receive measures the bytes; the file is visible only once committed', async (t) => {
      const { storage, partialUploads } = await make(t);
      const content = patterned(0, 10_000);
      const pending = await storage.receive(Readable.from([content.subarray(0, 4000), content.subarray(4000)]), 'txt');
      t.match(pending.storedName, /^[0-9a-f-]{36}\.txt$/);
      t.equal(pending.size, 10_000);
      t.equal(pending.sha256, sha256(content));
      t.same(pending.head, content.subarray(0, 4100), 'the head, for sniffing');
      t.equal(pending.truncated, false);
      t.equal(await storage.stat(pending.storedName), null, 'not visible before commit');
      t.equal(await storage.localPath(pending.storedName), null, 'no local path before commit');
      t.same(await storage.list(), [], 'not listed before commit');
      t.equal(await partialUploads(), 1, 'one partial upload meanwhile');
      await pending.commit();
      t.same(await storage.stat(pending.storedName), { size: 10_000 });
      t.same(await readAll(storage.openRead(pending.storedName)), content);
      t.equal(await partialUploads(), 0, 'the partial upload became the stored file');
      await pending.discard();
      t.same(await storage.stat(pending.storedName), { size: 10_000 }, 'discarding a committed file keeps it');
    });

    t.test('an empty file, and one without an extension', async (t) => {
      const { storage } = await make(t);
      const pending = await stored(storage, Buffer.alloc(0), '');
      t.match(pending.storedName, /^[0-9a-f-]{36}$/, 'no extension, no dot');
      t.same(await storage.stat(pending.storedName), { size: 0 });
      t.same(await readAll(storage.openRead(pending.storedName)), Buffer.alloc(0));
    });

    t.test('a truncated source is reported; discard leaves nothing, twice', async (t) => {
      const { storage, partialUploads } = await make(t);
      const source = Object.assign(new PassThrough(), { truncated: false });
      source.end(Buffer.from('partial'), () => (source.truncated = true));
      const pending = await storage.receive(source, 'png');
      t.equal(pending.truncated, true);
      await pending.discard();
      await pending.discard();
      t.equal(await partialUploads(), 0);
      t.equal(await storage.stat(pending.storedName), null);
      await t.rejects(pending.commit(), 'a discarded upload cannot be committed');
      t.equal(await storage.stat(pending.storedName), null);
    });

    t.test('a failing source fails the receive and leaves nothing behind', async (t) => {
      const { storage, partialUploads } = await make(t);
      for (const after of [0, 1, 3]) {
        let sent = 0;
        const source = new Readable({
          read() {
            if (sent++ < after) this.push(patterned(sent * CHUNK_BYTES, CHUNK_BYTES));
            else this.destroy(new Error('client went away'));
          },
        });
        await t.rejects(storage.receive(source, 'png'), { message: 'client went away' }, `after ${after} chunks`);
      }
      t.equal(await partialUploads(), 0);
      t.same(await storage.list(), []);
    });

    t.test('20 MB stream in and out without the storage holding the file', async (t) => {
      const { storage } = await make(t);
      const total = 20 * 1024 * 1024;
      const piece = 64 * 1024;
      const sampleEvery = 2 * 1024 * 1024;
      const baseline = liveBufferBytes();
      let peakIn = 0;
      const hashIn = createHash('sha256');
      async function* generated(): AsyncGenerator<Buffer> {
        for (let at = 0; at < total; at += piece) {
          if (at % sampleEvery === 0) peakIn = Math.max(peakIn, liveBufferBytes() - baseline);
          const bytes = patterned(at, piece);
          hashIn.update(bytes);
          yield bytes;
        }
      }
      const pending = await storage.receive(Readable.from(generated()), 'tif');
      await pending.commit();
      t.equal(pending.size, total);
      t.equal(pending.sha256, hashIn.digest('hex'));
      t.ok(peakIn < total / 4, `receiving held at most ${peakIn} bytes of buffers at once`);

      let peakOut = 0;
      let read = 0;
      let nextSample = 0;
      const hashOut = createHash('sha256');
      for await (const part of storage.openRead(pending.storedName)) {
        if (!Buffer.isBuffer(part)) throw new Error('not bytes');
        hashOut.update(part);
        read += part.length;
        if (read >= nextSample) {
          peakOut = Math.max(peakOut, liveBufferBytes() - baseline);
          nextSample += sampleEvery;
        }
      }
      t.equal(read, total);
      t.equal(hashOut.digest('hex'), pending.sha256, 'the bytes read back');
      t.ok(peakOut < total / 4, `reading held at most ${peakOut} bytes of buffers at once`);
    });

    t.test('ranges: single bytes, chunk boundaries, several chunks, past the end', async (t) => {
      const { storage } = await make(t);
      const C = CHUNK_BYTES;
      const size = 3 * C + 1000;
      const content = patterned(0, size);
      const { storedName } = await stored(storage, content);
      const ranges: [number, number][] = [
        [0, 0],
        [1, 1],
        [C - 1, C - 1],
        [C, C],
        [C - 1, C],
        [C - 2, 2 * C + 1],
        [2 * C, 3 * C - 1],
        [C + 17, C + 17],
        [3 * C, size - 1],
        [size - 1, size - 1],
        [0, size - 1],
        [10, 3 * C + 5],
      ];
      for (const [start, end] of ranges) {
        const bytes = await readAll(storage.openRead(storedName, { start, end }));
        t.ok(bytes.equals(content.subarray(start, end + 1)), `bytes ${start}-${end}`);
      }
      t.same(
        await readAll(storage.openRead(storedName, { start: size - 10, end: size + 100 })),
        content.subarray(size - 10),
        'a range past the end stops at the end',
      );
    });

    t.test('missing files: stat, openRead, localPath, remove', async (t) => {
      const { storage } = await make(t);
      const missing = '0b7a4c1e-0d1f-4f2a-9c3b-1a2b3c4d5e6f.png';
      t.equal(await storage.stat(missing), null);
      t.equal(await storage.localPath(missing), null);
      await t.rejects(readAll(storage.openRead(missing)), { code: 'ENOENT' });
      await storage.remove(missing);
      t.pass('removing a missing file is fine');
    });

    t.test('remove, twice; the file is gone from stat, list, reads and local paths', async (t) => {
      const { storage } = await make(t);
      const kept = await stored(storage, Buffer.from('kept'));
      const removed = await stored(storage, Buffer.from('removed'));
      t.ok(await storage.localPath(removed.storedName));
      await storage.remove(removed.storedName);
      await storage.remove(removed.storedName);
      t.equal(await storage.stat(removed.storedName), null);
      t.equal(await storage.localPath(removed.storedName), null);
      await t.rejects(readAll(storage.openRead(removed.storedName)), { code: 'ENOENT' });
      t.same(
        (await storage.list()).map((f) => f.storedName),
        [kept.storedName],
      );
    });

    t.test('list: committed files with their last write; uploads in progress are not listed', async (t) => {
      const { storage } = await make(t);
      const before = Date.now() - 60_000;
      const names = [];
      for (let i = 0; i < 3; i++) names.push((await stored(storage, Buffer.from(`file ${i}`), 'txt')).storedName);
      const pending = await storage.receive(Readable.from([Buffer.from('in progress')]), 'txt');
      const listed = await storage.list();
      t.same(listed.map((f) => f.storedName).sort(), names.sort());
      for (const file of listed)
        t.ok(file.modifiedAt > before && file.modifiedAt < Date.now() + 60_000, 'a recent time');
      await pending.discard();
    });

    t.test('localPath: a path on this machine holding the stored bytes', async (t) => {
      const { storage } = await make(t);
      const content = patterned(7, CHUNK_BYTES + 123);
      const { storedName } = await stored(storage, content, 'tif');
      const [first, second] = await Promise.all([storage.localPath(storedName), storage.localPath(storedName)]);
      t.ok(first);
      t.equal(first, second, 'one path, asked twice at once');
      t.ok(readFileSync(first ?? '').equals(content), 'holding the bytes');
      t.equal(await storage.localPath(storedName), first, 'the same path later');
    });

    t.test('stored names that are not generated ones are refused before anything is touched', async (t) => {
      const { storage } = await make(t);
      for (const name of ['../secret', '/etc/passwd', 'a.png', '', '0b7a4c1e-0d1f-4f2a-9c3b-1a2b3c4d5e6f/../x']) {
        t.equal(await storage.stat(name), null, `stat ${name}`);
        t.equal(await storage.localPath(name), null, `localPath ${name}`);
        t.throws(() => storage.openRead(name), `openRead ${name}`);
        await t.rejects(storage.remove(name), `remove ${name}`);
      }
    });

    t.test('concurrent receives each keep their own bytes', async (t) => {
      const { storage, partialUploads } = await make(t);
      const contents = Array.from({ length: 8 }, (_, i) => patterned(i * 1000, CHUNK_BYTES + 5000 * i));
      const pendings = await Promise.all(
        contents.map((content, i) =>
          storage.receive(
            Readable.from(
              (function* () {
                for (let at = 0; at < content.length; at += 10_000 + i) yield content.subarray(at, at + 10_000 + i);
              })(),
            ),
            'bin',
          ),
        ),
      );
      t.equal(await partialUploads(), 8);
      await Promise.all(pendings.map((pending) => pending.commit()));
      t.equal(new Set(pendings.map((p) => p.storedName)).size, 8, 'eight names');
      for (const [i, pending] of pendings.entries()) {
        t.equal(pending.sha256, sha256(contents[i]));
        t.ok((await readAll(storage.openRead(pending.storedName))).equals(contents[i]), `file ${i} reads back`);
      }
      t.equal((await storage.list()).length, 8);
    });
  });
}

fileStorageContract('local file storage (DATA_DIR/files)', async (t) => {
  const root = t.testdir();
  const areas = new LocalFileAreas(root, root);
  return {
    storage: areas.area('assets'),
    partialUploads: async () => {
      try {
        return readdirSync(join(root, 'tmp')).length;
      } catch {
        return 0;
      }
    },
  };
});

fileStorageContract(
  'PostgreSQL file storage (FILES_URL)',
  PG_EVENTSTORE_URL
    ? async (t) => {
        // A schema per test, dropped after it: each test starts on empty tables of its own.
        const schema = freshSchema();
        const areas = new PostgresFileAreas(PG_EVENTSTORE_URL, { schema, copiesDir: t.testdir() });
        t.teardown(async () => {
          await areas.close();
          await dropSchema(PG_EVENTSTORE_URL, schema);
        });
        return {
          storage: areas.area('assets'),
          partialUploads: async () => {
            const { rows } = await areas.query(
              `SELECT count(*)::int AS n FROM ${areas.files} WHERE upload IS NOT NULL`,
            );
            const n: unknown = rows[0]?.n;
            if (typeof n !== 'number') throw new Error('no count');
            return n;
          },
        };
      }
    : null,
  PG_EVENTSTORE_URL ? undefined : 'PG_EVENTSTORE_URL unset (a postgres:// URL of a database to test against)',
);
