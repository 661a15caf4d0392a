import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { MemoryDocumentStore } from '../../../infra/document-store/memory.js';
import type {
  Collection,
  CollectionOptions,
  Document,
  DocumentStore,
  Filter,
} from '../../../infra/document-store/port.js';
import { SqliteDocumentStore } from '../../../infra/document-store/sqlite.js';
import { textIndexFile } from '../../../infra/document-store/sqlite-tables.js';
import { seededRandom } from '../../seeded-random.js';

/**
 * The SQLite text search (an FTS5 trigram index) against the in-memory store's, which is the
 * reference: `field.toLowerCase().includes(text.toLowerCase())`. Random texts and needles
 * mixing case pairs JavaScript and SQLite fold differently, punctuation that means something
 * to FTS5 or LIKE, emoji (two UTF-16 units, one code point) and needles of every length.
 */

const OPTIONS: CollectionOptions = { indexes: ['n'], textSearch: { fields: ['title', 'excerpt', 'content'] } };

const PIECES = [
  'a',
  'b',
  'A',
  'B',
  'ab',
  'AB',
  ' ',
  '  ',
  'é',
  'É',
  'e\u0301',
  'İ',
  'i',
  'I',
  'ı',
  'ß',
  'ẞ',
  'SS',
  'Σ',
  'σ',
  'ς',
  'ǅ',
  'ǆ',
  '"',
  "'",
  '*',
  '%',
  '_',
  '\\',
  ':',
  '^',
  '-',
  '(',
  ')',
  '+',
  'AND',
  'OR',
  'NOT',
  'NEAR',
  'near',
  '😀',
  '🇫🇷',
  '中文',
  'Ⅻ',
  'ⅻ',
  'harbour',
  'Map',
  'MAP',
  '<p>',
  '</p>',
  '&amp;',
  '\n',
  '\t',
  '\0',
  'nul\0byte',
  '0',
  '10',
];

interface Doc extends Document {
  _id: number;
  n: number;
  title?: unknown;
  excerpt?: unknown;
  content?: unknown;
}

function randomText(next: () => number, max: number): string {
  let text = '';
  const pieces = Math.floor(next() * max);
  for (let i = 0; i < pieces; i++) text += PIECES[Math.floor(next() * PIECES.length)];
  return text;
}

function randomDoc(next: () => number, id: number): Doc {
  const doc: Doc = { _id: id, n: id % 3 };
  const roll = next();
  doc.title = roll < 0.05 ? null : roll < 0.1 ? 42 : randomText(next, 6);
  if (next() < 0.9) doc.excerpt = randomText(next, 8);
  if (next() < 0.9) doc.content = randomText(next, 20);
  return doc;
}

/** A needle: a piece of a stored text (case changed now and then), or made up, of any length. */
function randomNeedle(next: () => number, docs: readonly Doc[]): string {
  const roll = next();
  if (roll < 0.6) {
    const doc = docs[Math.floor(next() * docs.length)];
    const text = [doc.title, doc.excerpt, doc.content].find((v) => typeof v === 'string' && v.length > 0) as
      string | undefined;
    if (text) {
      const chars = [...text];
      const start = Math.floor(next() * chars.length);
      const piece = chars.slice(start, start + 1 + Math.floor(next() * 6)).join('');
      const cased = next();
      return cased < 0.3 ? piece.toUpperCase() : cased < 0.6 ? piece.toLowerCase() : piece;
    }
  }
  if (roll < 0.8) return PIECES[Math.floor(next() * PIECES.length)];
  return randomText(next, 3);
}

async function ids(
  collection: Collection<Doc>,
  filter: Filter,
  text: string,
): Promise<{ found: number[]; count: number; page: number[] }> {
  const found = (await collection.find(filter, { text, sort: { _id: 1 } })).map((doc) => doc._id);
  const page = (await collection.find(filter, { text, sort: { _id: -1 }, skip: 1, limit: 3 })).map((doc) => doc._id);
  return { found, count: await collection.count(filter, { text }), page };
}

async function compare(
  t: Test,
  sqlite: DocumentStore,
  memory: DocumentStore,
  needles: readonly string[],
  seed: number,
): Promise<void> {
  const mine = sqlite.collection<Doc>('posts', OPTIONS);
  const reference = memory.collection<Doc>('posts', OPTIONS);
  let mismatches = 0;
  for (const needle of needles) {
    for (const filter of [{}, { n: 1 }]) {
      const [got, want] = await Promise.all([ids(mine, filter, needle), ids(reference, filter, needle)]);
      if (JSON.stringify(got) !== JSON.stringify(want) && mismatches++ < 5) {
        t.same(got, want, `seed ${seed}: needle ${JSON.stringify(needle)} with ${JSON.stringify(filter)}`);
      }
    }
  }
  t.equal(mismatches, 0, `seed ${seed}: every needle finds the same documents in both stores`);
}

t.test('random texts and needles: SQLite finds what JavaScript finds', async (t) => {
  for (const seed of [1, 2, 3]) {
    const next = seededRandom(seed);
    const dir = t.testdir();
    const sqlite = new SqliteDocumentStore(`${dir}/read-models-${seed}.sqlite`);
    const memory = new MemoryDocumentStore();
    t.teardown(async () => {
      await sqlite.close();
      await memory.close();
    });
    const docs = Array.from({ length: 300 }, (_, i) => randomDoc(next, i + 1));
    await sqlite.collection<Doc>('posts', OPTIONS).putMany(docs);
    await memory.collection<Doc>('posts', OPTIONS).putMany(docs);
    const needles = Array.from({ length: 150 }, () => randomNeedle(next, docs));
    // Just written, the rows are pending (checked on their documents); settled, the index answers.
    await compare(t, sqlite, memory, needles, seed);
    await sqlite.settled();
    await compare(t, sqlite, memory, needles, seed);

    // The index follows every kind of write: replacing, updating, deleting.
    for (const store of [sqlite, memory]) {
      const posts = store.collection<Doc>('posts', OPTIONS);
      const changes = seededRandom(seed + 100);
      for (let i = 0; i < 60; i++) await posts.put(randomDoc(changes, 1 + Math.floor(changes() * 400)));
      await posts.updateMany({ n: 2 }, { $set: { title: 'Harbour MAP 😀' } });
      await posts.updateOne({ n: 0 }, { $unset: { content: '' } });
      await posts.deleteMany({ _id: { $lt: 20 } });
      await posts.deleteOne({ n: 1 });
    }
    await compare(t, sqlite, memory, [...needles.slice(0, 60), 'harbour map', 'p 😀', 'ap'], seed);
    await sqlite.settled();
    await compare(t, sqlite, memory, [...needles.slice(0, 60), 'harbour map', 'p 😀', 'ap'], seed);
  }
});

t.test('needles longer than the phrase given to FTS5: found by their beginning, checked whole', async (t) => {
  const sqlite = new SqliteDocumentStore(`${t.testdir()}/read-models.sqlite`);
  const memory = new MemoryDocumentStore();
  t.teardown(async () => {
    await sqlite.close();
    await memory.close();
  });
  const long = 'Harbour map of Lisbon, drawn in 1755 after the earthquake, with every street renamed by the new plan. ';
  const docs: Doc[] = [
    { _id: 1, n: 0, content: long.repeat(3) },
    // The same first hundred characters, then another ending.
    { _id: 2, n: 1, content: `${long.slice(0, 100)}and the old names.` },
    { _id: 3, n: 2, title: 'x'.repeat(70), content: 'x'.repeat(100_001) },
    { _id: 4, n: 0, excerpt: 'xxxxx', content: `${'😀'.repeat(80)}!` },
  ];
  await sqlite.collection<Doc>('posts', OPTIONS).putMany(docs);
  await memory.collection<Doc>('posts', OPTIONS).putMany(docs);
  // A needle of 100,000 code points made one FTS5 phrase of as many tokens, and gigabytes of memory.
  const needles = [
    long,
    long.repeat(2),
    long.slice(0, 100) + 'and',
    long.toUpperCase(),
    'x'.repeat(100_000),
    'x'.repeat(100_002),
    'x'.repeat(65),
    '😀'.repeat(80),
    `${'😀'.repeat(79)}!`,
  ];
  await sqlite.settled();
  await compare(t, sqlite, memory, needles, 0);
  t.same(
    (await sqlite.collection<Doc>('posts', OPTIONS).find({}, { text: 'x'.repeat(100_000) })).map((doc) => doc._id),
    [3],
    'the long run is found in the one post holding it',
  );
});

t.test('a text search needs the collection to declare its fields', async (t) => {
  const sqlite = new SqliteDocumentStore(`${t.testdir()}/read-models.sqlite`);
  const memory = new MemoryDocumentStore();
  t.teardown(async () => {
    await sqlite.close();
    await memory.close();
  });
  for (const store of [sqlite, memory]) {
    await t.rejects(store.collection('plain').find({}, { text: 'map' }), /declares no text fields/);
    await t.rejects(store.collection('plain').count({}, { text: 'm' }), /declares no text fields/);
  }
  t.throws(() => sqlite.collection('bad', { textSearch: { fields: [] } }), /at least one field/);
  t.throws(() => sqlite.collection('bad2', { textSearch: { fields: ['a.b'] } }), /top-level field/);
});

t.test('the text index lives in the file: reopened, dropped, added to a collection with documents', async (t) => {
  const file = `${t.testdir()}/read-models.sqlite`;
  const first = new SqliteDocumentStore(file);
  // Stored before the collection declared its text fields (a file from before the index).
  await first.collection<Doc>('posts').putMany([
    { _id: 1, n: 0, title: 'Old Harbour' },
    { _id: 2, n: 0, title: 'New town' },
  ]);
  const withText = first.collection<Doc>('posts', OPTIONS);
  t.same(
    (await withText.find({}, { text: 'harb' })).map((d) => d._id),
    [1],
    'documents stored before are indexed when the fields are declared',
  );
  await first.close();

  const second = new SqliteDocumentStore(file);
  const posts = second.collection<Doc>('posts', OPTIONS);
  t.same(
    (await posts.find({}, { text: 'TOWN' })).map((d) => d._id),
    [2],
    'a reopened file keeps its index',
  );
  await posts.drop();
  t.same(await posts.find({}, { text: 'town' }), [], 'a dropped collection drops its index');
  await posts.put({ _id: 3, n: 0, title: 'Town hall' });
  t.same(
    (await posts.find({}, { text: 'town' })).map((d) => d._id),
    [3],
  );
  await second.dropAll();
  t.same(await posts.count({}, { text: 'town' }), 0, 'dropAll drops text indexes with their collections');
  await posts.put({ _id: 4, n: 0, title: 'Town again' });
  t.same(
    (await posts.find({}, { text: 'town' })).map((d) => d._id),
    [4],
  );
  await second.close();
});

t.test('a text search is served by the FTS5 table, the newest-first order by its index', async (t) => {
  const store = new SqliteDocumentStore(`${t.testdir()}/read-models.sqlite`);
  t.teardown(() => store.close());
  const posts = store.collection<Doc>('posts', { indexes: [['n', 'title']], textSearch: { fields: ['title'] } });
  await posts.putMany(Array.from({ length: 50 }, (_, i) => ({ _id: i, n: i % 2, title: `post ${i}` })));
  const plan = store.plan('posts', { n: 1 }, { text: 'post 1', sort: { title: -1 }, limit: 3 }).join('\n');
  t.match(plan, /VIRTUAL TABLE INDEX/, plan);
  const ordered = store.plan('posts', { n: 1 }, { sort: { title: -1 }, limit: 3 }).join('\n');
  t.notMatch(ordered, /USE TEMP B-TREE FOR ORDER BY/, `a plain field's order comes from its index: ${ordered}`);
});

t.test('a needle found by its rarest trigrams: a post holding them apart is not an answer', async (t) => {
  const sqlite = new SqliteDocumentStore(`${t.testdir()}/read-models.sqlite`);
  const memory = new MemoryDocumentStore();
  t.teardown(async () => {
    await sqlite.close();
    await memory.close();
  });
  // Common words in every post make every trigram of "the harbour" but those of "harb" common.
  const common = 'the other harbour of the town';
  const docs: Doc[] = Array.from({ length: 200 }, (_, i) => ({
    _id: i + 1,
    n: i % 3,
    title: `${common} ${i}`.replace('harbour', 'hour'),
  }));
  docs.push({ _id: 201, n: 0, title: 'Harbinger', content: 'the bar, then a harp' });
  docs.push({ _id: 202, n: 1, excerpt: 'Past THE HARBOUR wall' });
  docs.push({ _id: 203, n: 2, content: 'a harbour, the harbour' });
  await sqlite.collection<Doc>('posts', OPTIONS).putMany(docs);
  await memory.collection<Doc>('posts', OPTIONS).putMany(docs);
  await compare(
    t,
    sqlite,
    memory,
    ['the harbour', 'The Harbinger', 'harbinger', 'r, the harb', 'then a harp', 'bar, then'],
    0,
  );
  await sqlite.settled();
  await compare(
    t,
    sqlite,
    memory,
    ['the harbour', 'The Harbinger', 'harbinger', 'r, the harb', 'then a harp', 'bar, then'],
    0,
  );
  t.same(
    (await sqlite.collection<Doc>('posts', OPTIONS).find({}, { text: 'the harbour', sort: { _id: 1 } })).map(
      (doc) => doc._id,
    ),
    [202, 203],
  );

  // Searched while empty, then filled: the sample of the index is read again.
  const later = sqlite.collection<Doc>('later', OPTIONS);
  t.same(await later.find({}, { text: 'the harbour' }), []);
  await later.putMany(docs);
  t.same(
    (await later.find({}, { text: 'the harbour', sort: { _id: 1 } })).map((doc) => doc._id),
    [202, 203],
  );
  await sqlite.settled();
  t.same(
    (await later.find({}, { text: 'the harbour', sort: { _id: 1 } })).map((doc) => doc._id),
    [202, 203],
  );
});

/** Rows of a table in a SQLite file, read by a connection of the test's own (an owed table's, row 0 aside: it numbers the marks). */
function countRows(file: string, table: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(`SELECT count(*) FROM "${table}" WHERE rowid <> 0`).pluck().get() as number;
  } finally {
    db.close();
  }
}

t.test(
  'the text rows are written by the thread into a file of their own, and searched there once settled',
  async (t) => {
    const file = `${t.testdir()}/read-models.sqlite`;
    const store = new SqliteDocumentStore(file);
    const posts = store.collection<Doc>('posts', OPTIONS);
    await posts.putMany([
      { _id: 1, n: 0, title: 'Old Harbour' },
      { _id: 2, n: 0, title: 'New town' },
    ]);
    await store.settled();
    t.equal(countRows(textIndexFile(file), 'docs_posts__text'), 2, 'the text file holds a row per document');
    t.equal(countRows(file, 'docs_posts__text_owed'), 0, 'nothing is owed once the thread has reported');
    // A row changed behind the store's back in the text file is what a search then finds: the
    // answer comes from the index, not from the documents.
    const text = new Database(textIndexFile(file));
    text
      .prepare(
        `UPDATE docs_posts__text SET title = 'zzqq' WHERE rowid = (SELECT rowid FROM docs_posts__text WHERE title = 'new town')`,
      )
      .run();
    text.close();
    t.same(
      (await posts.find({}, { text: 'zzqq' })).map((d) => d._id),
      [2],
    );
    // Written again, the row is pending: checked on its document until the thread indexes it.
    await posts.put({ _id: 2, n: 0, title: 'New Town Hall' });
    t.same(
      (await posts.find({}, { text: 'zzqq' })).map((d) => d._id),
      [],
    );
    t.same(
      (await posts.find({}, { text: 'town hall' })).map((d) => d._id),
      [2],
    );
    await store.settled();
    t.same(
      (await posts.find({}, { text: 'zzqq' })).map((d) => d._id),
      [],
    );
    t.same(
      (await posts.find({}, { text: 'town hall' })).map((d) => d._id),
      [2],
    );
    await store.close();
  },
);

t.test('rows a stopped process left owed are indexed at the next start, and searched meanwhile', async (t) => {
  const file = `${t.testdir()}/read-models.sqlite`;
  const first = new SqliteDocumentStore(file);
  await first.collection<Doc>('posts', OPTIONS).putMany([{ _id: 1, n: 0, title: 'Harbour' }]);
  await first.close();
  // As a crash leaves it: a document and its mark committed, its text never written.
  const db = new Database(file);
  db.prepare(`INSERT INTO docs_posts (_id, doc) VALUES (2, '{"_id":2,"n":0,"title":"Harbour lights"}')`).run();
  db.prepare(`INSERT INTO docs_posts__text_owed (rowid, seq) SELECT rowid, 7 FROM docs_posts WHERE _id = 2`).run();
  db.close();
  t.equal(countRows(textIndexFile(file), 'docs_posts__text'), 1);

  const second = new SqliteDocumentStore(file);
  const posts = second.collection<Doc>('posts', OPTIONS);
  t.same(
    (await posts.find({}, { text: 'harbour', sort: { _id: 1 } })).map((d) => d._id),
    [1, 2],
    'the owed row is found on its document',
  );
  await second.settled();
  t.equal(countRows(textIndexFile(file), 'docs_posts__text'), 2, 'and indexed by the thread');
  await second.close();
  t.equal(countRows(file, 'docs_posts__text_owed'), 0, 'its mark removed');
});

t.test('a text index an earlier version kept inside the read-model file is moved out', async (t) => {
  const file = `${t.testdir()}/read-models.sqlite`;
  const db = new Database(file);
  db.exec(`CREATE TABLE docs_posts (_id PRIMARY KEY NOT NULL, doc TEXT NOT NULL)`);
  db.exec(
    `CREATE VIRTUAL TABLE docs_posts__text USING fts5(title, excerpt, content, tokenize = 'trigram case_sensitive 1')`,
  );
  db.prepare(
    `INSERT INTO docs_posts (_id, doc) VALUES (1, '{"_id":1,"n":0,"title":"Harbour"}'), (2, '{"_id":2,"n":1,"title":"Town"}')`,
  ).run();
  db.prepare(
    `INSERT INTO docs_posts__text (rowid, title) SELECT rowid, lower(json_extract(doc, '$.title')) FROM docs_posts`,
  ).run();
  db.close();

  const store = new SqliteDocumentStore(file);
  const posts = store.collection<Doc>('posts', OPTIONS);
  t.same(
    (await posts.find({}, { text: 'town' })).map((d) => d._id),
    [2],
  );
  await store.settled();
  t.same(
    (await posts.find({}, { text: 'harb' })).map((d) => d._id),
    [1],
  );
  await store.close();
  t.equal(countRows(textIndexFile(file), 'docs_posts__text'), 2, 'every document is indexed in the text file');
  const check = new Database(file, { readonly: true });
  t.equal(
    check.prepare(`SELECT count(*) FROM sqlite_master WHERE name = 'docs_posts__text'`).pluck().get(),
    0,
    'the old table is gone from the read-model file',
  );
  check.close();
});

t.test('a text index thread that fails is reported and started again; searches stay right meanwhile', async (t) => {
  const file = `${t.testdir()}/read-models.sqlite`;
  const store = new SqliteDocumentStore(file);
  t.teardown(() => store.close());
  const posts = store.collection<Doc>('posts', OPTIONS);
  await posts.put({ _id: 1, n: 0, title: 'Harbour' });
  await store.settled();
  // Another connection holds the text file's write lock: past its busy timeout, the thread's next write fails.
  const text = new Database(textIndexFile(file));
  text.exec('BEGIN IMMEDIATE');
  const warned = new Promise<string>((resolve) => process.once('warning', (warning) => resolve(warning.message)));
  await posts.put({ _id: 2, n: 0, title: 'Harbour lights' });
  t.match(await warned, /text index thread failed.*database is locked/);
  t.same(
    (await posts.find({}, { text: 'lights' })).map((d) => d._id),
    [2],
    'the row owed is found on its document',
  );
  // Released, the next thread (started a second after the failure) indexes what is owed.
  text.exec('COMMIT');
  text.close();
  await store.settled();
  t.equal(countRows(textIndexFile(file), 'docs_posts__text'), 2, 'the owed row is indexed by the new thread');
  t.equal(countRows(file, 'docs_posts__text_owed'), 0);
  t.same(
    (await posts.find({}, { text: 'lights' })).map((d) => d._id),
    [2],
  );
});

t.test('a post another process wrote is found before its thread has indexed it', async (t) => {
  const file = `${t.testdir()}/read-models.sqlite`;
  const server = new SqliteDocumentStore(file);
  const importer = new SqliteDocumentStore(file);
  t.teardown(async () => {
    await server.close();
    await importer.close();
  });
  const served = server.collection<Doc>('posts', OPTIONS);
  await served.put({ _id: 1, n: 0, title: 'Harbour' });
  // Committed, so the other connection can take the write lock.
  await server.settled();
  await importer.collection<Doc>('posts', OPTIONS).put({ _id: 2, n: 0, title: 'Harbour lights' });
  // Committed at once, not awaited: its thread has not indexed the post yet.
  const importerSettled = importer.settled();
  t.same(
    (await served.find({}, { text: 'harbour', sort: { _id: 1 } })).map((d) => d._id),
    [1, 2],
    'found by its mark in the file',
  );
  await importerSettled;
  t.same(
    (await served.find({}, { text: 'lights' })).map((d) => d._id),
    [2],
    'and by the index once indexed',
  );
});

t.test('a text table another server makes while this one asks for it is kept, with the rows it holds', async (t) => {
  const file = `${t.testdir()}/read-models.sqlite`;
  // The other server's thread, holding the text file's write lock while it makes the table and indexes a post.
  const other = new Database(textIndexFile(file));
  other.pragma('journal_mode = WAL');
  other.exec('BEGIN IMMEDIATE');
  other.exec(
    `CREATE VIRTUAL TABLE docs_posts__text USING fts5(title, excerpt, content, tokenize = 'trigram case_sensitive 1')`,
  );
  other
    .prepare('INSERT INTO docs_posts__text (rowid, title, excerpt, content) VALUES (?, ?, ?, ?)')
    .run(1000, 'harbour', '', '');
  const warnings: string[] = [];
  const warned = (warning: Error) => warnings.push(warning.message);
  process.on('warning', warned);
  const store = new SqliteDocumentStore(file);
  t.teardown(async () => {
    process.off('warning', warned);
    await store.close();
  });
  const posts = store.collection<Doc>('posts', OPTIONS);
  // No table yet as this store sees the file: its thread is asked for one, and waits for the lock.
  await posts.find({}, { text: 'harbour' });
  await new Promise((resolve) => setTimeout(resolve, 1000));
  other.exec('COMMIT');
  other.close();
  await posts.put({ _id: 2, n: 0, title: 'Harbour lights' });
  await store.settled();
  t.equal(
    countRows(textIndexFile(file), 'docs_posts__text'),
    2,
    "the other server's row is still there, beside this one's",
  );
  t.same(warnings, [], 'and the thread looked at the table only once it held the lock: it did not fail making one');
});
