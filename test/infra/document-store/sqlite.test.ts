import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import type { Document, Filter } from '../../../infra/document-store/port.js';
import { SqliteDocumentStore } from '../../../infra/document-store/sqlite.js';
import { DependencyUnavailableError } from '../../../infra/errors.js';
import { UnsupportedQueryError } from '../../../infra/document-store/sql-paths.js';
import { assetFolders, assetUsage } from '../../../contracts/assets/documents.js';
import { blogCategories, blogComments, blogPosts } from '../../../contracts/blog/documents.js';
import { clickDocs, tokenDocs } from '../../../contracts/directory/documents.js';
import { pageVersions } from '../../../contracts/page-versioning/documents.js';
import { mediaDocs, sitePages, sites } from '../../../contracts/platform/documents.js';
import { userDocs } from '../../../contracts/users/documents.js';
import { chatbotBlogPosts } from '../../../contracts/chatbot/documents.js';

function openStore(t: Test, file = join(t.testdir(), 'read-models.sqlite')): SqliteDocumentStore {
  const store = new SqliteDocumentStore(file);
  t.teardown(() => store.close());
  return store;
}

async function refusal(t: Test, work: () => Promise<unknown>, named: RegExp, what: string): Promise<void> {
  const error = await work().then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(error instanceof UnsupportedQueryError, `${what}: UnsupportedQueryError`);
  t.match((error as Error | null)?.message ?? '', named, `${what}: the message names it`);
}

t.test('anything outside the subset is refused at its first use, naming it', async (t) => {
  const docs = openStore(t).collection<Document>('docs');
  await docs.put({ _id: 1, n: 1, tags: ['a'] });
  const filters: [Filter, RegExp][] = [
    [{ $nor: [{ n: 1 }] }, /\$nor/],
    [{ n: { $not: { $gt: 1 } } }, /\$not/],
    [{ tags: { $size: 1 } }, /\$size/],
    [{ tags: { $all: ['a'] } }, /\$all/],
    [{ n: { $type: 'number' } }, /\$type/],
    [{ $where: 'true' }, /\$where/],
    [{ $expr: { $gt: ['$n', 0] } }, /\$expr/],
    [{ owner: { name: 'Ana' } }, /equality with an object/],
    [{ tags: ['a'] }, /equality with an array/],
    [{ n: { $in: [[1]] } }, /\$in with an array/],
    [{ n: { $gt: null } }, /\$gt with/],
    [{ n: { $gt: true } }, /\$gt with/],
    [{ n: { $regex: 'a', $options: 'x' } }, /options "x"/],
    [{ 'bad-name': 1 }, /"bad-name"/],
    [{ $or: [] }, /\$or takes a non-empty array/],
  ];
  for (const [filter, named] of filters) await refusal(t, () => docs.find(filter), named, JSON.stringify(filter));
  await refusal(
    t,
    () => docs.find({}, { sort: { n: 'asc' as unknown as 1 } }),
    /sort direction asc/,
    'a sort direction other than 1 or -1',
  );
  await refusal(t, () => docs.count({ $nor: [] }), /\$nor/, 'count');
  await refusal(t, () => docs.deleteMany({ n: { $size: 0 } }), /\$size/, 'deleteMany');
  await refusal(t, () => docs.find({ $nor: [] }, { limit: 0 }), /\$nor/, 'even with limit 0');

  const updates: [Record<string, Record<string, unknown>>, RegExp][] = [
    [{ $mul: { n: 2 } }, /\$mul/],
    [{ $rename: { n: 'm' } }, /\$rename/],
    [{ $push: { tags: { $each: ['b', 'c'] } } }, /modifiers \(\$each\)/],
    [{ $pull: { tags: { $in: ['a'] } } }, /\$pull of "tags" takes/],
    [{ $set: { _id: 2 } }, /cannot change _id/],
    [{ $set: { 'tags.0': 'b' } }, /array indexes/],
    [{ $inc: { tags: 1 } }, /\$inc of "tags"/],
    [{ $set: { 'n.deeper': 1 } }, /goes through "n"/],
  ];
  for (const [update, named] of updates)
    await refusal(t, () => docs.updateOne({ _id: 1 }, update), named, JSON.stringify(update));
  t.same(await docs.findOne({ _id: 1 }), { _id: 1, n: 1, tags: ['a'] }, 'the document is as it was');
});

t.test('an update that fails on one document changes none of them', async (t) => {
  const docs = openStore(t).collection<Document>('docs');
  await docs.putMany([
    { _id: 1, n: 1 },
    { _id: 2, n: 'two' },
    { _id: 3, n: 3 },
  ]);
  await refusal(t, () => docs.updateMany({}, { $inc: { n: 1 } }), /\$inc of "n"/, '$inc on a string');
  t.same(await docs.find({}, { sort: { _id: 1 } }), [
    { _id: 1, n: 1 },
    { _id: 2, n: 'two' },
    { _id: 3, n: 3 },
  ]);
});

t.test(
  'declared index fields hold strings, numbers or null; a document that breaks that is refused whole',
  async (t) => {
    const store = openStore(t);
    const docs = store.collection<Document>('docs', { indexes: ['slug'] });
    await docs.put({ _id: 1, slug: 'a' });
    await refusal(t, () => docs.put({ _id: 2, slug: ['a'] }), /indexed field "slug" of document 2/, 'an array');
    await refusal(
      t,
      () =>
        docs.putMany([
          { _id: 3, slug: 'c' },
          { _id: 4, slug: true },
        ]),
      /indexed field "slug" of document 4/,
      'a boolean in a batch',
    );
    await refusal(
      t,
      () => docs.updateOne({ _id: 1 }, { $set: { slug: { x: 1 } } }),
      /indexed field "slug"/,
      'an update that would store an object',
    );
    t.same(await docs.find({}), [{ _id: 1, slug: 'a' }], 'nothing of the refused writes is stored');
    await docs.put({ _id: 5, slug: null });
    await docs.put({ _id: 6 });
    t.same(
      (await docs.find({ slug: null }, { sort: { _id: 1 } })).map((d) => d._id),
      [5, 6],
      'null and missing are allowed and match null',
    );

    const loose = store.collection<Document>('loose');
    await loose.put({ _id: 1, tags: ['a'] });
    t.throws(
      () => store.collection('loose', { indexes: ['tags'] }),
      /"tags" cannot be indexed, document 1 holds an array/,
      'declaring an index over stored arrays is refused',
    );
    await refusal(
      t,
      () => Promise.resolve().then(() => store.collection('x', { indexes: ['a.b'] })),
      /top-level field/,
      'a dotted index field',
    );
  },
);

t.test('read models survive closing and reopening the file, declared indexes included', async (t) => {
  const file = join(t.testdir(), 'read-models.sqlite');
  const first = new SqliteDocumentStore(file);
  await first.collection<Document>('docs', { indexes: ['slug'] }).putMany([
    {
      _id: 1,
      slug: 'one',
      text: 'ünïcødé ✓ "quotes" \\ and \u0000 nul',
      big: 2 ** 53 - 1,
      tiny: 5e-324,
      nested: { list: [1, { a: null }] },
    },
    { _id: 'two', slug: 'two' },
  ]);
  await first.close();
  const second = openStore(t, file);
  const docs = second.collection<Document>('docs', { indexes: ['slug'] });
  t.same(await docs.findOne({ _id: 1 }), {
    _id: 1,
    slug: 'one',
    text: 'ünïcødé ✓ "quotes" \\ and \u0000 nul',
    big: 2 ** 53 - 1,
    tiny: 5e-324,
    nested: { list: [1, { a: null }] },
  });
  t.equal((await docs.findOne({ slug: 'two' }))?._id, 'two');
  t.equal(await docs.count({ _id: '1' }), 0, 'a string _id is not the number');
  t.match(second.plan('docs', { slug: 'one' }).join('\n'), /USING INDEX/, 'the index is there after reopening');
});

const commitInterval = () => new Promise<void>((resolve) => setTimeout(resolve, 80));

/** The names of the indexes SQLite holds on a collection's table (its declared ones: expression indexes). */
function indexesOn(file: string, table: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name`)
      .pluck()
      .all(table) as string[];
  } finally {
    db.close();
  }
}

t.test('an index declared longer replaces the one its fields begin with, in a file written before', async (t) => {
  const file = join(t.testdir(), 'read-models.sqlite');
  const first = new SqliteDocumentStore(file);
  const docs = Array.from({ length: 30 }, (_, i) => ({
    _id: i + 1,
    status: i % 3 === 0 ? 'draft' : 'published',
    rank: i % 7,
    at: i % 2 === 0 ? null : `2026-01-${String(1 + (i % 28)).padStart(2, '0')}`,
  }));
  await first.collection<Document>('posts', { indexes: [['status', 'rank']] }).putMany(docs);
  await first.close();
  t.same(
    indexesOn(file, 'docs_posts'),
    ['docs_posts__status__rank'],
    'the shorter index, as the earlier version declared it',
  );

  const second = new SqliteDocumentStore(file);
  const posts = second.collection<Document>('posts', { indexes: [['status', 'rank', 'at']] });
  const filter = { status: 'published', $or: [{ at: null }, { at: { $lte: '2026-01-20' } }] };
  const page = await posts.find(filter, { sort: { rank: -1, _id: -1 }, skip: 3, limit: 4 });
  t.match(
    second.plan('posts', filter, { sort: { rank: -1 }, skip: 3, limit: 4 }).join('\n'),
    /USING INDEX docs_posts__status__rank__at/,
    'the longer index walks the page',
  );
  await second.close();
  t.same(indexesOn(file, 'docs_posts'), ['docs_posts__status__rank__at'], 'the shorter one is gone');
  const expected = docs
    .filter((d) => d.status === 'published' && (d.at === null || d.at <= '2026-01-20'))
    .sort((a, b) => b.rank - a.rank || b._id - a._id)
    .slice(3, 7);
  t.same(page, expected, 'the same page as the filter and sort give');

  const third = openStore(t, file);
  third.collection<Document>('posts', { indexes: [['status', 'rank', 'at']] });
  const both = third.collection<Document>('posts', { indexes: [['status', 'rank'], 'status'] });
  t.equal(await both.count({ status: 'published' }), 20);
  await commitInterval();
  t.same(
    indexesOn(file, 'docs_posts'),
    ['docs_posts__status__rank__at'],
    'declaring a prefix of a declared index makes nothing: the longer one answers it',
  );
  t.match(
    third.plan('posts', { status: 'published' }).join('\n'),
    /USING (COVERING )?INDEX docs_posts__status__rank__at/,
  );
});

t.test(
  'the public blog list walks its index past skipped posts without reading them (published_at is in it)',
  async (t) => {
    const store = openStore(t);
    blogPosts(store);
    const shown = {
      status: 'published',
      $or: [{ published_at: null }, { published_at: { $lte: '2026-01-01 00:00:00' } }],
    };
    const sort = { sort_time: -1, id: -1 } as const;
    t.match(
      store.plan('blog_posts', shown, { sort, skip: 1000, limit: 10 }).join('\n'),
      /USING INDEX docs_blog_posts__status__sort_time__id__published_at/,
    );
    t.match(
      store.plan('blog_posts', { ...shown, author_id: 3 }, { sort, skip: 1000, limit: 10 }).join('\n'),
      /USING INDEX docs_blog_posts__status__author_id__sort_time__id__published_at/,
    );
    t.match(
      store.plan('blog_posts', { ...shown, category_id: 3 }, { sort, skip: 1000, limit: 10 }).join('\n'),
      /USING INDEX docs_blog_posts__status__category_id__sort_time__id__published_at/,
    );
  },
);

t.test('writes gather in one transaction that commits within the commit interval', async (t) => {
  const file = join(t.testdir(), 'read-models.sqlite');
  const store = openStore(t, file);
  const docs = store.collection<Document>('docs');
  await docs.put({ _id: 0 });
  await commitInterval();
  const reader = new Database(file, { readonly: true });
  t.teardown(() => reader.close());
  const visible = () => reader.prepare('SELECT count(*) FROM docs_docs').pluck().get() as number;
  await docs.put({ _id: 1 });
  await docs.put({ _id: 2 });
  t.equal(visible(), 1, 'not yet committed: another connection sees the earlier state');
  t.equal(await docs.count(), 3, 'the store itself reads its own writes at once');
  await new Promise<void>((resolve) => setImmediate(resolve));
  t.equal(visible(), 1, 'not at the end of the turn either');
  await commitInterval();
  t.equal(visible(), 3, 'committed together');
});

/** The look-ups the importer, the projections and the queries make, and the accessor that declares their indexes. */
const HOT_LOOKUPS: [string, (store: SqliteDocumentStore) => unknown, string, Filter][] = [
  ['blog category by slug', blogCategories, 'blog_categories', { slug: 'news' }],
  ['blog posts of a category', blogPosts, 'blog_posts', { category_id: 3 }],
  ['comments of a post', blogComments, 'blog_comments', { post_id: 7 }],
  ['comments by status', blogComments, 'blog_comments', { status: 'pending' }],
  ['site by slug, another id', sites, 'sites', { slug: 'main', _id: { $ne: 4 } }],
  ['pages of a site', sitePages, 'site_pages', { site_id: 1 }],
  ['page slug clash in a site', sitePages, 'site_pages', { site_id: 1, slug: 'about', _id: { $ne: -1 } }],
  ['media of an item', mediaDocs, 'media', { item_id: 100 }],
  ['versions of a page', pageVersions, 'page_versions', { resource_id: 5 }],
  ['a page version by stream version', pageVersions, 'page_versions', { resource_id: 5, stream_version: 2 }],
  ['earlier versions of a page', pageVersions, 'page_versions', { resource_id: 5, _id: { $lt: 90 } }],
  ['directory token by hash, not revoked', tokenDocs, 'directory_tokens', { token_hash: 'abc', revoked_at: null }],
  ['clicks in a date range', clickDocs, 'directory_clicks', { date: { $gte: '2026-01-01', $lte: '2026-01-31' } }],
  ['user by email', userDocs, 'users', { email: 'ada@example.org' }],
  ['usage of an asset', assetUsage, 'asset_usage', { asset_id: 9 }],
  ['folder slug among siblings', assetFolders, 'asset_folders', { parent_id: null, slug: 'maps', _id: { $ne: -1 } }],
  [
    'scheduled posts due',
    chatbotBlogPosts,
    'chatbot_blog_posts',
    { status: 'published', published_at: { $gt: '2026-01-01 00:00:00', $lte: '2026-01-02 00:00:00' } },
  ],
  ['by _id', sites, 'sites', { _id: 1 }],
  ['several by _id', sites, 'sites', { _id: { $in: [1, 2, 3] } }],
];

t.test('every hot look-up is answered through an index (EXPLAIN QUERY PLAN)', async (t) => {
  const store = openStore(t);
  for (const [what, accessor, name, filter] of HOT_LOOKUPS) {
    accessor(store);
    const plan = store.plan(name, filter).join('\n');
    t.match(plan, /SEARCH .* USING (INDEX|PRIMARY KEY|INTEGER PRIMARY KEY)/, `${what}: ${plan}`);
    t.notMatch(plan, /SCAN docs_/, `${what}: no scan of the table`);
  }
});

t.test('without the declaration the same look-up scans, and still answers right', async (t) => {
  const store = openStore(t);
  const docs = store.collection<Document>('plain');
  await docs.putMany([
    { _id: 1, slug: 'a' },
    { _id: 2, slug: ['a', 'b'] },
  ]);
  t.match(store.plan('plain', { slug: 'a' }).join('\n'), /SCAN docs_plain/);
  t.same(
    (await docs.find({ slug: 'a' }, { sort: { _id: 1 } })).map((d) => d._id),
    [1, 2],
    'an array holding the value matches',
  );
});

t.test(
  'a file another process keeps locked is DependencyUnavailableError, so the event is retried rather than skipped',
  async (t) => {
    const file = join(t.testdir(), 'read-models.sqlite');
    const store = new SqliteDocumentStore(file, { busyTimeoutMs: 20 });
    t.teardown(() => store.close());
    const docs = store.collection<Document>('docs');
    await docs.put({ _id: 1 });
    await commitInterval();
    const other = new Database(file);
    t.teardown(() => other.close());
    other.exec('BEGIN IMMEDIATE');
    const error = await docs.put({ _id: 2 }).then(
      () => null,
      (e: unknown) => e,
    );
    t.ok(error instanceof DependencyUnavailableError, 'DependencyUnavailableError');
    other.exec('ROLLBACK');
    await docs.put({ _id: 2 });
    t.equal(await docs.count(), 2, 'writes go on once the lock is gone');
  },
);

t.test(
  'a skip or limit beyond any table (a page number of 23 digits) reads as past the end, or no limit',
  async (t) => {
    const docs = openStore(t).collection<Document>('docs');
    await docs.putMany([{ _id: 1 }, { _id: 2 }]);
    t.same(await docs.find({}, { skip: 1e24, limit: 10 }), []);
    t.same(await docs.find({}, { skip: 1e24 }), []);
    t.same((await docs.find({}, { limit: 1e24 })).length, 2);
    t.same(
      (await docs.find({}, { skip: 1, limit: Number.POSITIVE_INFINITY })).map((d) => d._id),
      [2],
    );
    await refusal(t, () => docs.find({}, { skip: -1 }), /skip must be a number of documents/, 'a negative skip');
  },
);

t.test(
  'a caller reordering its list changes no later answer; a write, here or by another connection, is seen at once',
  async (t) => {
    const file = join(t.testdir(), 'read-models.sqlite');
    const store = openStore(t, file);
    const docs = store.collection<Document>('docs');
    await docs.putMany([
      { _id: 1, n: 1 },
      { _id: 2, n: 2 },
    ]);
    const first = await docs.find({}, { sort: { n: 1 } });
    first.reverse();
    t.same(
      (await docs.find({}, { sort: { n: 1 } })).map((d) => d._id),
      [1, 2],
      'the reordered list was the caller own copy',
    );
    await docs.updateOne({ _id: 1 }, { $set: { n: 3 } });
    t.same(
      (await docs.find({}, { sort: { n: 1 } })).map((d) => d._id),
      [2, 1],
      'an update is seen by the next read',
    );
    t.equal(await docs.count({ n: 3 }), 1);
    await commitInterval();

    const other = new Database(file);
    t.teardown(() => other.close());
    other.prepare('UPDATE docs_docs SET doc = ? WHERE _id = ?').run(JSON.stringify({ _id: 2, n: 9 }), 2);
    t.equal(await docs.count({ n: 3 }), 1, 'an unchanged answer');
    t.same(
      (await docs.findOne({ _id: 2 }))?.n,
      9,
      'another connection committed: nothing remembered from before is answered',
    );
    t.same(
      (await docs.find({}, { sort: { n: 1 } })).map((d) => d._id),
      [1, 2],
    );
  },
);

t.test(
  'another process commit moves the change mark from the next turn of the event loop; another store of this process, at once; documents are read afresh each time',
  async (t) => {
    const file = join(t.testdir(), 'read-models.sqlite');
    const store = openStore(t, file);
    const docs = store.collection<Document>('docs');
    await docs.put({ _id: 1, n: 1 });
    await commitInterval();
    const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
    await nextTurn();

    // A plain connection stands for another process: it bumps no counter of this one.
    const otherProcess = new Database(file);
    t.teardown(() => otherProcess.close());
    t.equal((await docs.findOne({ _id: 1 }))?.n, 1);
    const mark = store.changeMark();
    otherProcess.prepare('UPDATE docs_docs SET doc = ? WHERE _id = ?').run(JSON.stringify({ _id: 1, n: 2 }), 1);
    t.equal((await docs.findOne({ _id: 1 }))?.n, 2, 'a find reads the file: the commit is seen at once');
    t.equal(store.changeMark(), mark, 'the change mark is looked at once a turn');
    await nextTurn();
    t.ok(store.changeMark() > mark, 'the next turn looks again and sees the commit');

    const before = store.changeMark();
    const sameProcess = openStore(t, file);
    await sameProcess.collection<Document>('docs').put({ _id: 1, n: 3 });
    await sameProcess.close();
    t.ok(store.changeMark() > before, 'a commit of another store of this process moves it in the same turn');
    t.equal((await docs.findOne({ _id: 1 }))?.n, 3);
  },
);

t.test('two collections declared with one options object both get its indexes and text search', async (t) => {
  const store = openStore(t);
  const shared = { indexes: ['slug'], textSearch: { fields: ['title'] } } as const;
  const first = store.collection<Document>('first', shared);
  const second = store.collection<Document>('second', shared);
  await first.put({ _id: 1, slug: 'a', title: 'Harbour' });
  await second.put({ _id: 1, slug: 'b', title: 'River' });
  t.match(store.plan('first', { slug: 'a' }).join('\n'), /USING INDEX/);
  t.match(store.plan('second', { slug: 'b' }).join('\n'), /USING INDEX/, 'the second collection has the index too');
  t.same(
    (await second.find({}, { text: 'rIV' })).map((doc) => doc._id),
    [1],
    'and its text search',
  );
});

t.test(
  'dropAll keeps a kept collection with its element index; keeping one with a text index is refused',
  async (t) => {
    const store = openStore(t);
    const kept = store.collection<Document>('kept', { indexes: ['n'], elementIndexes: ['tags'] });
    const posts = store.collection<Document>('posts', { textSearch: { fields: ['title'] } });
    await kept.putMany([
      { _id: 1, n: 1, tags: ['a', 'b'] },
      { _id: 2, n: 2, tags: ['b'] },
    ]);
    await posts.put({ _id: 1, title: 'A town' });
    await store.dropAll({ keep: ['kept'] });
    t.same(
      (await kept.find({ tags: 'b' }, { sort: { n: 1 } })).map((d) => d._id),
      [1, 2],
      'its element index still answers',
    );
    t.same(
      (await kept.find({ tags: 'a' })).map((d) => d._id),
      [1],
    );
    t.equal(await posts.count({}, { text: 'town' }), 0, 'the others are gone, text index too');
    await posts.put({ _id: 2, title: 'A town again' });
    await refusal(t, () => store.dropAll({ keep: ['posts'] }), /text index/, 'keeping a collection with a text index');
    t.equal(await posts.count({}, { text: 'town' }), 1, 'the refused dropAll dropped nothing');
  },
);
