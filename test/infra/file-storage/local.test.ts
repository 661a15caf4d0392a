import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import t from 'tap';
import { LocalFileStorage } from '../../../infra/file-storage/local.js';
import { sniffMimeType } from '../../../infra/file-storage/sniff.js';

t.test('receive streams to a temporary file; commit moves it under a generated name', async (t) => {
  const root = t.testdir();
  const storage = new LocalFileStorage(root, 'assets');
  const content = Buffer.alloc(10_000, 'a');
  const pending = await storage.receive(Readable.from([content.subarray(0, 4000), content.subarray(4000)]), 'txt');
  t.match(pending.storedName, /^[0-9a-f-]{36}\.txt$/);
  t.equal(pending.size, 10_000);
  t.equal(pending.sha256, createHash('sha256').update(content).digest('hex'));
  t.equal(pending.head.length, 4100, 'keeps only the head for sniffing');
  t.equal(pending.truncated, false);
  t.equal(await storage.stat(pending.storedName), null, 'not visible before commit');
  t.equal(readdirSync(join(root, 'tmp')).length, 1);
  await pending.commit();
  t.same(await storage.stat(pending.storedName), { size: 10_000 });
  t.same(readdirSync(join(root, 'tmp')), [], 'the temporary file became the stored one');
  t.same(readFileSync(join(root, 'assets', pending.storedName)), content);
  await storage.remove(pending.storedName);
  t.equal(await storage.stat(pending.storedName), null);
  await storage.remove(pending.storedName);
  t.pass('removing twice is fine');
});

t.test('a truncated source is reported; discard removes the temporary file', async (t) => {
  const root = t.testdir();
  const storage = new LocalFileStorage(root, 'assets');
  const source = Object.assign(new PassThrough(), { truncated: false });
  source.end(Buffer.from('partial'), () => (source.truncated = true));
  const pending = await storage.receive(source, '');
  t.equal(pending.truncated, true);
  t.match(pending.storedName, /^[0-9a-f-]{36}$/, 'no extension, no dot');
  await pending.discard();
  t.same(readdirSync(join(root, 'tmp')), []);
});

t.test('a failing source leaves nothing behind', async (t) => {
  const root = t.testdir();
  const storage = new LocalFileStorage(root, 'assets');
  // The source may fail before the temporary file is even open; repeated, so that order comes up.
  for (let attempt = 0; attempt < 300; attempt++) {
    const source = new Readable({
      read() {
        this.destroy(new Error('client went away'));
      },
    });
    const error = await storage.receive(source, 'png').then(
      () => null,
      (reason: unknown) => reason,
    );
    if (!(error instanceof Error) || error.message !== 'client went away')
      t.fail(`attempt ${attempt}: ${String(error)}`);
    const left = readdirSync(join(root, 'tmp'));
    if (left.length > 0) {
      t.same(left, [], `attempt ${attempt}`);
      return;
    }
  }
  t.pass('300 failed receives left no temporary file');
});

t.test('stored names that are not generated ones never reach the disk', async (t) => {
  const root = t.testdir();
  const storage = new LocalFileStorage(root, 'assets');
  for (const name of ['../secret', '/etc/passwd', 'a.png', '']) {
    t.equal(await storage.stat(name), null, `stat ${name}`);
    t.throws(() => storage.openRead(name), `openRead ${name}`);
    await t.rejects(storage.remove(name), `remove ${name}`);
  }
  t.notOk(existsSync(join(root, '..', 'secret')));
});

t.test('sniffing trusts content, not names', async (t) => {
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  );
  t.equal(await sniffMimeType(png, 'txt'), 'image/png');
  t.equal(await sniffMimeType(Buffer.from('hello'), 'txt'), 'text/plain');
  t.equal(await sniffMimeType(Buffer.from('a,b\n1,2'), 'csv'), 'text/csv');
  t.equal(await sniffMimeType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>'), 'png'), 'image/svg+xml');
  t.equal(
    await sniffMimeType(Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>'), 'svg'),
    'image/svg+xml',
  );
  t.equal(await sniffMimeType(Buffer.from([0, 159, 146, 150]), 'txt'), 'application/octet-stream');
  t.equal(
    await sniffMimeType(Buffer.from('caf\u00e9 \u2603'.repeat(2000)).subarray(0, 4100), 'txt'),
    'text/plain',
    'a head cut inside a character is still text',
  );
});

t.test('localPath answers a path holding the stored bytes, for libraries that read at random offsets', async (t) => {
  const root = t.testdir();
  const storage = new LocalFileStorage(root, 'media');
  const content = Buffer.from('tiles at random offsets');
  const pending = await storage.receive(Readable.from([content]), 'tif');
  t.equal(await storage.localPath(pending.storedName), null, 'not before commit');
  await pending.commit();
  const path = await storage.localPath(pending.storedName);
  t.ok(path, 'a path once committed');
  t.same(readFileSync(path ?? ''), content, 'holding the bytes');
  await storage.remove(pending.storedName);
  t.equal(await storage.localPath(pending.storedName), null, 'none once removed');
  t.equal(await storage.localPath('../escape.tif'), null, 'a name it did not make names no file');
});
