import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import t from 'tap';
import { LocalFileStorage } from '../../../infra/file-storage/local.js';
import { LEFTOVER_AGE_MS, ownerOf, removeLeftoverUploads } from '../../../infra/file-storage/partial-uploads.js';

const HOST = encodeURIComponent(hostname());

/** A pid no process has: a child that has exited (its pid is not reused within the test). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid as number;
}

t.test('a partial upload is named after its owning host and process', async (t) => {
  const root = t.testdir();
  const storage = new LocalFileStorage(root, 'assets');
  let seen: string[] = [];
  const source = new Readable({
    read() {
      // Later than the temporary file's creation, which receive starts before it reads.
      setTimeout(() => {
        seen = readdirSync(join(root, 'tmp'));
        this.push(null);
      }, 50);
    },
  });
  const pending = await storage.receive(source, 'txt');
  t.equal(seen.length, 1);
  t.same(ownerOf(seen[0]), { host: hostname(), pid: process.pid });
  await pending.discard();
});

t.test('at start, partial uploads no live upload can own are removed; the others stay', async (t) => {
  const root = t.testdir();
  const tmp = join(root, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const now = Date.now();
  const startedAt = now - 5_000;
  const dead = await deadPid();
  const files: Record<string, { ageMs: number; removed: boolean }> = {
    // This pid, written before this process started: a previous process had the same pid.
    [`${HOST}@${process.pid}@a.part`]: { ageMs: 60_000, removed: true },
    // This pid, written since the start: an upload of this very process.
    [`${HOST}@${process.pid}@b.part`]: { ageMs: 1_000, removed: false },
    [`${HOST}@${dead}@c.part`]: { ageMs: 1_000, removed: true },
    // A live process on this host (another server on the same DATA_DIR, say).
    [`${HOST}@${process.ppid}@d.part`]: { ageMs: 60_000, removed: false },
    // Another host on a shared volume: its processes cannot be asked, only the age tells.
    [`elsewhere@${dead}@e.part`]: { ageMs: 60_000, removed: false },
    [`elsewhere@${dead}@f.part`]: { ageMs: LEFTOVER_AGE_MS + 60_000, removed: true },
    // Named before owners were recorded.
    ['0b5c2d7e-6a43-4a43-8d9e-1f6f0f7a9e11.part']: { ageMs: 60_000, removed: false },
    ['1b5c2d7e-6a43-4a43-8d9e-1f6f0f7a9e11.part']: { ageMs: LEFTOVER_AGE_MS + 60_000, removed: true },
    // Not a partial upload.
    ['notes.txt']: { ageMs: LEFTOVER_AGE_MS + 60_000, removed: false },
  };
  for (const [name, { ageMs }] of Object.entries(files)) {
    const path = join(tmp, name);
    writeFileSync(path, 'bytes');
    const at = (now - ageMs) / 1000;
    utimesSync(path, at, at);
  }
  const removed = await removeLeftoverUploads(root, { startedAt, now });
  for (const [name, { removed: expected }] of Object.entries(files)) {
    t.equal(existsSync(join(tmp, name)), !expected, `${name} ${expected ? 'removed' : 'kept'}`);
  }
  t.same(
    removed.sort(),
    Object.keys(files)
      .filter((name) => files[name].removed)
      .sort(),
  );
  t.same(await removeLeftoverUploads(t.testdir() + '-missing', { startedAt, now }), [], 'no tmp folder: nothing to do');
});
