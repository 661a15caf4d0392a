import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { appModules } from '../../app/modules.js';
import { SqliteDocumentStore } from '../../infra/document-store/sqlite.js';
import { EmbeddedEventBus } from '../../infra/event-bus/embedded.js';
import type { StoredEvent } from '../../infra/event-store/port.js';
import { SqliteEventStore } from '../../infra/event-store/sqlite.js';
import { ProjectionRunner } from '../../projections/runner.js';
import { seededRandom } from '../seeded-random.js';

/**
 * The application's projections over one log, folded one event per batch and in batches of
 * many: a batch reads what its earlier events wrote (an item its media update, a post's
 * previous slug), deletes and writes again, and queries by other fields (a deleted post's
 * comments), and must leave exactly the read models of events applied one by one, rows in the
 * same order.
 */

function mixedLog(seed: number): StoredEvent[] {
  const random = seededRandom(seed);
  const int = (max: number) => Math.floor(random() * max);
  const events: Omit<StoredEvent, 'position' | 'streamVersion'>[] = [];
  const add = (streamId: string, type: string, data: object, minute: number) =>
    events.push({ streamId, type, data, metadata: { userId: 1, at: new Date(Date.UTC(2025, 0, 1, 0, minute)).toISOString() } });
  const itemFields = (id: number) => ({ title: `Item ${id} ${int(3)}`, description: `About ${int(5)}`, is_public: random() < 0.8, item_set_ids: [], site_ids: [1] });
  const postFields = (id: number) => ({
    title: `Post ${id} map ${int(4)}`,
    slug: `post-${id}-${int(2)}`,
    excerpt: 'A harbour',
    content: `<p>Ship ${int(9)}</p>`,
    status: random() < 0.7 ? 'published' : 'draft',
    author_id: 1,
    category_id: null,
    featured_image_asset_id: null,
    featured_image_url: null,
    published_at: '2025-01-01 00:00:00',
    tags: [],
    site_ids: [1],
  });
  for (let step = 0; step < 400; step++) {
    const id = 1 + int(12);
    const kind = int(11);
    if (kind <= 1) add(`item-${id}`, random() < 0.5 ? 'ItemCreated' : 'ItemUpdated', { id, fields: itemFields(id), changed: ['title'] }, step);
    else if (kind === 2) add(`item-${id}`, 'ItemDeleted', { id }, step);
    else if (kind <= 4) add(`media-${id}`, random() < 0.5 ? 'MediaCreated' : 'MediaUpdated', { id, fields: { item_id: 1 + int(12), title: `Scan ${id}`, text: 'Old map', is_public: true }, changed: ['item_id'] }, step);
    else if (kind === 5) add(`media-${id}`, 'MediaDeleted', { id }, step);
    else if (kind <= 7) add(`blog_post-${id}`, random() < 0.5 ? 'BlogPostCreated' : 'BlogPostUpdated', { id, fields: postFields(id) }, step);
    else if (kind === 8) add(`blog_post-${id}`, 'BlogPostDeleted', { id }, step);
    else if (kind === 9) {
      const fields = { post_id: 1 + int(12), author_name: 'Reader', author_email: 'reader@example.org', body: 'Nice', status: 'pending' };
      add(`blog_comment-${id}`, 'BlogCommentPosted', { id, fields }, step);
    } else add(`blog_comment-${id}`, random() < 0.5 ? 'BlogCommentModerated' : 'BlogCommentDeleted', { id, status: 'approved', post_id: 1 }, step);
  }
  return events.map((event, i) => ({ ...event, position: i + 1, streamVersion: 1 }));
}

/**
 * Every read-model table's rows in rowid order, the text indexes' too (their rowids are their
 * documents'), and the element indexes' by value. The rowids themselves may differ: after a
 * delete SQLite may hand out a freed one.
 */
function tables(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true });
  try {
    const names = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'docs\\_%' ESCAPE '\\' AND name NOT LIKE '%\\_text\\_%' ESCAPE '\\' ORDER BY name`).pluck().all() as string[];
    // An element index names documents by rowid: compared by their _id, in value order.
    const rows = (name: string) => {
      const [documents] = name.split('__elements__');
      // The checkpoints' rows are inserted as each projection first applies an event, which batching moves.
      if (name === 'docs__checkpoints') return db.prepare(`SELECT * FROM "${name}" ORDER BY _id`).raw().all();
      if (documents === name) return db.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).raw().all();
      return db.prepare(`SELECT e.value, d._id FROM "${name}" AS e JOIN "${documents}" AS d ON d.rowid = e.doc ORDER BY e.value, d._id`).raw().all();
    };
    return Object.fromEntries(names.map((name) => [name, rows(name)]));
  } finally {
    db.close();
  }
}

async function replay(file: string, events: StoredEvent[], batchSize: (i: number) => number): Promise<void> {
  const log = new SqliteEventStore(':memory:');
  const documents = new SqliteDocumentStore(file);
  const projections = appModules.flatMap((module) => module.projections ?? []);
  const runner = new ProjectionRunner(projections, new EmbeddedEventBus(log), log, documents, { error: () => {}, warn: () => {} });
  try {
    for (let i = 0; i < events.length; ) {
      const size = batchSize(i);
      await runner.handle(events.slice(i, i + size));
      i += size;
    }
    // As a rebuild ends and a runtime stops: every checkpoint saved.
    await runner.saveAllCheckpoints();
  } finally {
    await documents.close();
    await log.close();
  }
}

t.test('batches of events leave the read models that one event at a time leaves', async (t) => {
  const dir = t.testdir();
  for (const seed of [1, 2, 3]) {
    const events = mixedLog(seed);
    const single = join(dir, `single-${seed}.sqlite`);
    const batched = join(dir, `batched-${seed}.sqlite`);
    await replay(single, events, () => 1);
    const sizes = seededRandom(seed + 100);
    await replay(batched, events, () => 1 + Math.floor(sizes() * 60));
    const expected = tables(single);
    t.ok(Object.keys(expected).length >= 8, `seed ${seed}: the log fills many read models (${Object.keys(expected).join(', ')})`);
    t.same(tables(batched), expected, `seed ${seed}: the same rows, in the same order`);
  }
});
