import t, { type Test } from 'tap';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { MemoryDocumentStore } from '../../../infra/document-store/memory.js';
import type { Document } from '../../../infra/document-store/port.js';
import { SPILL_MIN_LENGTH } from '../../../infra/document-store/spilled-strings.js';
import { ScratchFile } from '../../../infra/scratch-file.js';

interface PostDoc extends Document {
  _id: number;
  title: string;
  content: string;
  tags: string[];
}

function storeIn(t: Test): { store: MemoryDocumentStore; directory: string } {
  const directory = mkdtempSync(join(tmpdir(), 'spilled-strings-test-'));
  const store = new MemoryDocumentStore({ directory, youngChars: 0 });
  t.teardown(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return { store, directory };
}

/** About `length` characters of text in one, two, three and four UTF-8 bytes, never cut inside a surrogate pair. */
const body = (seed: string, length = 2000): string =>
  `${seed} café 日本 📚 `
    .repeat(Math.ceil(length / 20))
    .slice(0, length)
    .replace(/[\ud800-\udbff]$/, '');

t.test('a long string is kept in the file and reads back whole, in every way a caller reads a document', async (t) => {
  const { store, directory } = storeIn(t);
  const posts = store.collection<PostDoc>('posts');
  const original: PostDoc = { _id: 1, title: 'First', content: body('alpha'), tags: ['maps'] };
  await posts.put(original);
  const stored = (await posts.findOne({ _id: 1 })) as PostDoc;
  t.not(stored, original, 'the store keeps a copy with the string spilled');
  t.equal(stored.content, original.content);
  t.same(Object.keys(stored), ['_id', 'title', 'content', 'tags'], 'same keys in the same order, no location keys');
  t.equal(JSON.stringify(stored), JSON.stringify(original));
  t.same({ ...stored }, original);
  t.same(structuredClone(stored), original);
  t.ok(statSync(join(directory, readdirSync(directory)[0])).size >= 0, 'the file is in the directory given');
});

t.test('documents without a long string are stored as given', async (t) => {
  const { store, directory } = storeIn(t);
  const posts = store.collection<PostDoc>('posts');
  const doc: PostDoc = { _id: 1, title: 'Short', content: 'x'.repeat(SPILL_MIN_LENGTH - 1), tags: [] };
  await posts.put(doc);
  t.equal(await posts.findOne({ _id: 1 }), doc);
  t.same(readdirSync(directory), [], 'no file until a string needs one');
});

t.test('filters, updates, replacements and deletes see the spilled strings', async (t) => {
  const { store } = storeIn(t);
  const posts = store.collection<PostDoc>('posts');
  await posts.putMany([
    { _id: 1, title: 'One', content: body('needle'), tags: [] },
    { _id: 2, title: 'Two', content: body('hay'), tags: [] },
  ]);
  t.same((await posts.find({ content: { $regex: 'needle' } })).map((p) => p._id), [1]);
  await posts.updateOne({ _id: 2 }, { $set: { title: 'Two, renamed' } });
  const two = (await posts.findOne({ _id: 2 })) as PostDoc;
  t.equal(two.title, 'Two, renamed');
  t.equal(two.content, body('hay'), 'an update keeps the spilled string');
  await posts.updateOne({ _id: 2 }, { $push: { tags: 'maps' } });
  t.equal(((await posts.findOne({ _id: 2 })) as PostDoc).content, body('hay'), 'so does an update through the general path');
  await posts.put({ _id: 1, title: 'One', content: body('replaced'), tags: [] });
  t.equal(((await posts.findOne({ _id: 1 })) as PostDoc).content, body('replaced'));
  const held = (await posts.findOne({ _id: 1 })) as PostDoc;
  await posts.deleteOne({ _id: 1 });
  t.equal(held.content, body('replaced'), 'a document a caller still holds after its delete still reads');
  t.equal(await posts.count(), 1);
});

t.test('a string larger than the write buffer round trips', async (t) => {
  const { store } = storeIn(t);
  const posts = store.collection<PostDoc>('posts');
  const huge = body('huge', 600_000);
  await posts.put({ _id: 1, title: 'Huge', content: huge, tags: [] });
  await posts.put({ _id: 2, title: 'After', content: body('after'), tags: [] });
  t.equal(((await posts.findOne({ _id: 1 })) as PostDoc).content, huge);
  t.equal(((await posts.findOne({ _id: 2 })) as PostDoc).content, body('after'));
});

t.test('once dead bytes outweigh live ones the file is compacted, and documents held from before still read right', async (t) => {
  const { store, directory } = storeIn(t);
  const posts = store.collection<PostDoc>('posts');
  const other = store.collection<PostDoc>('pages');
  await other.put({ _id: 1, title: 'Kept', content: body('kept'), tags: [] });
  await posts.put({ _id: 1, title: 'Version 0', content: body('version 0', 1_000_000), tags: [] });
  const first = (await posts.findOne({ _id: 1 })) as PostDoc;
  // Each replacement leaves about 1.5 MB dead; 40 of them pass the 32 MB threshold.
  for (let version = 1; version <= 40; version++) {
    await posts.put({ _id: 1, title: `Version ${version}`, content: body(`version ${version}`, 1_000_000), tags: [] });
  }
  t.equal(((await posts.findOne({ _id: 1 })) as PostDoc).content, body('version 40', 1_000_000));
  t.equal(((await other.findOne({ _id: 1 })) as PostDoc).content, body('kept'), 'another collection is compacted too');
  t.equal(first.content, body('version 0', 1_000_000), 'a document replaced before the compaction still reads its own string');
  t.equal(readdirSync(directory).length, 2, 'a fresh file, and the old one kept open for the document still held');
});

t.test('dropping everything and closing the store leave no file behind', async (t) => {
  const { store, directory } = storeIn(t);
  const posts = store.collection<PostDoc>('posts');
  await posts.put({ _id: 1, title: 'One', content: body('one'), tags: [] });
  await store.dropAll();
  t.equal(await posts.count(), 0);
  await posts.put({ _id: 2, title: 'Two', content: body('two'), tags: [] });
  t.equal(((await posts.findOne({ _id: 2 })) as PostDoc).content, body('two'));
  await store.close();
  t.same(readdirSync(directory), []);
});

t.test('a stored copy of a document with many keys stays a compact object, not a hash table', async (t) => {
  // Natives syntax is read when a function is compiled, so the flag set here applies to the one below.
  setFlagsFromString('--allow-natives-syntax');
  const hasFastProperties = new Function('object', 'return %HasFastProperties(object)') as (object: object) => boolean;
  const { store } = storeIn(t);
  const wide = store.collection<Document>('wide');
  const doc: Document = { _id: 1 };
  for (let n = 0; n < 30; n++) doc[`field_${n}`] = n;
  doc.content = body('wide');
  await wide.put(doc);
  const stored = (await wide.findOne({ _id: 1 })) as Document;
  t.not(stored, doc, 'the string was spilled');
  t.ok(hasFastProperties(stored));
});

t.test('reading many documents over and over gives each its own string, past what the recent-reads cache keeps', async (t) => {
  const { store } = storeIn(t);
  const posts = store.collection<PostDoc>('posts');
  const count = 3000;
  const docs: PostDoc[] = [];
  for (let id = 1; id <= count; id++) docs.push({ _id: id, title: `Post ${id}`, content: body(`post ${id}`, 1000), tags: [] });
  await posts.putMany(docs);
  let wrong = 0;
  for (let pass = 0; pass < 2; pass++) {
    for (let id = count; id >= 1; id -= pass + 1) {
      if (((await posts.findOne({ _id: id })) as PostDoc).content !== body(`post ${id}`, 1000)) wrong++;
    }
  }
  t.equal(wrong, 0);
});

t.test('walks along the file read it a window at a time, and every read, walking or jumping, gets its own bytes', async (t) => {
  const { store } = storeIn(t);
  const posts = store.collection<PostDoc>('posts');
  // Lengths from the spill threshold to past half a read window (those are read alone), in 1 to 4 UTF-8 bytes a character.
  const lengthOf = (id: number) => (id % 97 === 0 ? 40_000 : SPILL_MIN_LENGTH + ((id * 37) % 1500));
  const count = 2000;
  const docs: PostDoc[] = [];
  for (let id = 1; id <= count; id++) docs.push({ _id: id, title: `Post ${id}`, content: body(`p${id}`, lengthOf(id)), tags: [] });
  await posts.putMany(docs);
  // Written after the others: some of these are still in the write buffer, not the file.
  for (let id = count + 1; id <= count + 20; id++) await posts.put({ _id: id, title: `Post ${id}`, content: body(`p${id}`, lengthOf(id)), tags: [] });
  const total = count + 20;
  const readAt = ScratchFile.prototype.readAt;
  let fileReads = 0;
  ScratchFile.prototype.readAt = function (this: ScratchFile, into: Uint8Array, position: number) {
    fileReads += 1;
    readAt.call(this, into, position);
  };
  t.teardown(() => {
    ScratchFile.prototype.readAt = readAt;
  });
  const wrongIn = async (ids: number[]): Promise<number> => {
    let wrong = 0;
    for (const id of ids) if (((await posts.findOne({ _id: id })) as PostDoc).content !== body(`p${id}`, lengthOf(id))) wrong++;
    return wrong;
  };
  const ascending = Array.from({ length: total }, (_, i) => i + 1);
  fileReads = 0;
  t.equal(await wrongIn(ascending), 0, 'walking forwards');
  t.ok(fileReads < count / 10, `walking forwards read the file ${fileReads} times for ${count} strings`);
  fileReads = 0;
  t.equal(await wrongIn([...ascending].reverse()), 0, 'walking backwards');
  t.ok(fileReads < count / 10, `walking backwards read the file ${fileReads} times for ${count} strings`);
  const jumps = ascending.map((id) => ((id * 7919) % total) + 1);
  t.equal(await wrongIn(jumps), 0, 'jumping about');
  t.equal(await wrongIn(ascending.filter((id) => id % 5 === 0)), 0, 'walking with strides');
});

t.test('any key survives the compiled copy: quotes, line breaks, separators, __proto__', async (t) => {
  const { store } = storeIn(t);
  const odd = store.collection<Document>('odd');
  const keys = ['it\'s', 'say "hi"', 'line\nbreak', 'a\u0000b', 'a', 'b', '$where', '}); process.exit(1); ({', '0', 'constructor'];
  const doc: Document = { _id: 1 };
  keys.forEach((key, n) => (doc[key] = n % 2 === 0 ? `value ${n}` : body(`value ${n}`)));
  Object.defineProperty(doc, '__proto__', { value: 'not a prototype', enumerable: true, writable: true, configurable: true });
  await odd.put(doc);
  const stored = (await odd.findOne({ _id: 1 })) as Document;
  t.equal(Object.getPrototypeOf(stored), Object.prototype);
  t.equal(Object.getOwnPropertyDescriptor(stored, '__proto__')?.value, 'not a prototype');
  for (const [n, key] of keys.entries()) t.equal(stored[key], n % 2 === 0 ? `value ${n}` : body(`value ${n}`), JSON.stringify(key));
  // Two documents whose keys would run together without lengths: each keeps its own keys.
  await odd.put({ _id: 2, 'a\u0000b': body('joined') });
  await odd.put({ _id: 3, a: body('apart'), b: 'short' });
  t.same(Object.keys((await odd.findOne({ _id: 2 })) as Document), ['_id', 'a\u0000b']);
  t.same(Object.keys((await odd.findOne({ _id: 3 })) as Document), ['_id', 'a', 'b']);
});

t.test('the same keys spilled differently are built each their own way', async (t) => {
  const { store } = storeIn(t);
  const posts = store.collection<PostDoc>('posts');
  await posts.put({ _id: 1, title: body('long title'), content: 'short', tags: [] });
  await posts.put({ _id: 2, title: 'short', content: body('long content'), tags: [] });
  t.same(await posts.findOne({ _id: 1 }), { _id: 1, title: body('long title'), content: 'short', tags: [] });
  t.same(await posts.findOne({ _id: 2 }), { _id: 2, title: 'short', content: body('long content'), tags: [] });
});

t.test('a string with a lone surrogate half stays in memory, unchanged', async (t) => {
  const { store } = storeIn(t);
  const posts = store.collection<PostDoc>('posts');
  const broken = `${'x'.repeat(500)}\ud83d${'y'.repeat(10)}`;
  await posts.put({ _id: 1, title: 'Broken', content: broken, tags: [] });
  t.equal(((await posts.findOne({ _id: 1 })) as PostDoc).content, broken);
});

t.test('an update leaves the strings it does not touch where they are in the file', async (t) => {
  const { store, directory } = storeIn(t);
  const items = store.collection<Document>('items');
  const description = body('description', 1_000_000);
  await items.put({ _id: 1, title: 'Item', description, media_ids: [], views: 0 });
  const before = (await items.findOne({ _id: 1 })) as Document;
  // Each rewrite of the description would leave about 1.5 MB dead: 60 would force a compaction.
  for (let n = 1; n <= 60; n++) {
    await items.updateOne({ _id: 1 }, { $inc: { views: 1 }, $addToSet: { media_ids: n } });
  }
  const after = (await items.findOne({ _id: 1 })) as Document;
  t.equal(after.views, 60);
  t.equal((after.media_ids as number[]).length, 60);
  t.equal(after.description, description);
  t.same(Object.keys(after), ['_id', 'title', 'description', 'media_ids', 'views']);
  t.equal(readdirSync(directory).length, 1, 'one file: nothing was rewritten, so nothing compacted');
  t.equal(before.description, description);

  await items.updateOne({ _id: 1 }, { $set: { description: body('rewritten') } });
  t.equal(((await items.findOne({ _id: 1 })) as Document).description, body('rewritten'), 'a changed long string is spilled anew');
  await items.updateOne({ _id: 1 }, { $set: { description: 'short now', note: body('a new key') } });
  const last = (await items.findOne({ _id: 1 })) as Document;
  t.equal(last.description, 'short now');
  t.equal(last.note, body('a new key'));
  t.same(Object.keys(last), ['_id', 'title', 'description', 'media_ids', 'views', 'note']);
  t.equal(before.description, description, 'the document held from before still reads its own string');
});

t.test('documents of many shapes are built right, also after the shape tree started over', async (t) => {
  const { store } = storeIn(t);
  const docs = store.collection<Document>('shapes');
  // A key of its own each (a tree node each): past 20,000 nodes the tree starts over.
  const count = 21_000;
  for (let i = 0; i < count; i++) await docs.put({ _id: i, [`key_${i}`]: `${i} ${'x'.repeat(SPILL_MIN_LENGTH)}` });
  // The same shape again, spilled or not in other places: each gets its own builder.
  await docs.put({ _id: 'a', first: 'short', second: 'y'.repeat(SPILL_MIN_LENGTH) });
  await docs.put({ _id: 'b', first: 'z'.repeat(SPILL_MIN_LENGTH), second: 'short' });
  for (const i of [0, 1, 19_999, 20_000, 20_001, count - 1]) {
    const doc = await docs.findOne({ _id: i });
    t.same(Object.keys(doc ?? {}), ['_id', `key_${i}`], `document ${i} keeps its keys in order`);
    t.equal(doc?.[`key_${i}`], `${i} ${'x'.repeat(SPILL_MIN_LENGTH)}`, `document ${i} reads its spilled string back`);
  }
  t.same(await docs.findOne({ _id: 'a' }), { _id: 'a', first: 'short', second: 'y'.repeat(SPILL_MIN_LENGTH) });
  t.same(await docs.findOne({ _id: 'b' }), { _id: 'b', first: 'z'.repeat(SPILL_MIN_LENGTH), second: 'short' });
});
