import Database from 'better-sqlite3';
import type { StoredEvent } from '../../infra/event-store/port.js';
import { seededRandom } from '../seeded-random.js';

/** A log of 400 events over items, media, posts and comments, from a seed: the same seed, the same log. */
export function mixedLog(seed: number): StoredEvent[] {
  const random = seededRandom(seed);
  const int = (max: number) => Math.floor(random() * max);
  const events: Omit<StoredEvent, 'position' | 'streamVersion'>[] = [];
  const add = (streamId: string, type: string, data: object, minute: number) =>
    events.push({
      streamId,
      type,
      data,
      metadata: { userId: 1, at: new Date(Date.UTC(2025, 0, 1, 0, minute)).toISOString() },
    });
  const itemFields = (id: number) => ({
    title: `Item ${id} ${int(3)}`,
    description: `About ${int(5)}`,
    is_public: random() < 0.8,
    item_set_ids: [],
    site_ids: [1],
  });
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
    if (kind <= 1)
      add(
        `item-${id}`,
        random() < 0.5 ? 'ItemCreated' : 'ItemUpdated',
        { id, fields: itemFields(id), changed: ['title'] },
        step,
      );
    else if (kind === 2) add(`item-${id}`, 'ItemDeleted', { id }, step);
    else if (kind <= 4)
      add(
        `media-${id}`,
        random() < 0.5 ? 'MediaCreated' : 'MediaUpdated',
        {
          id,
          fields: { item_id: 1 + int(12), title: `Scan ${id}`, text: 'Old map', is_public: true },
          changed: ['item_id'],
        },
        step,
      );
    else if (kind === 5) add(`media-${id}`, 'MediaDeleted', { id }, step);
    else if (kind <= 7)
      add(
        `blog_post-${id}`,
        random() < 0.5 ? 'BlogPostCreated' : 'BlogPostUpdated',
        { id, fields: postFields(id) },
        step,
      );
    else if (kind === 8) add(`blog_post-${id}`, 'BlogPostDeleted', { id }, step);
    else if (kind === 9) {
      const fields = {
        post_id: 1 + int(12),
        author_name: 'Reader',
        author_email: 'reader@example.org',
        body: 'Nice',
        status: 'pending',
      };
      add(`blog_comment-${id}`, 'BlogCommentPosted', { id, fields }, step);
    } else
      add(
        `blog_comment-${id}`,
        random() < 0.5 ? 'BlogCommentModerated' : 'BlogCommentDeleted',
        { id, status: 'approved', post_id: 1 },
        step,
      );
  }
  return events.map((event, i) => ({ ...event, position: i + 1, streamVersion: 1 }));
}

/**
 * Every read-model table's rows in rowid order, the text indexes' too (their rowids are their
 * documents'), and the element indexes' by value. The rowids themselves may differ: after a
 * delete SQLite may hand out a freed one.
 */
export function tables(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true });
  try {
    const names = db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'docs\\_%' ESCAPE '\\' AND name NOT LIKE '%\\_text\\_%' ESCAPE '\\' ORDER BY name`,
      )
      .pluck()
      .all() as string[];
    // An element index names documents by rowid: compared by their _id, in value order.
    const rows = (name: string) => {
      const [documents] = name.split('__elements__');
      // The checkpoints' rows are inserted as each projection first applies an event, which batching moves.
      if (name === 'docs__checkpoints') return db.prepare(`SELECT * FROM "${name}" ORDER BY _id`).raw().all();
      if (documents === name) return db.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).raw().all();
      return db
        .prepare(
          `SELECT e.value, d._id FROM "${name}" AS e JOIN "${documents}" AS d ON d.rowid = e.doc ORDER BY e.value, d._id`,
        )
        .raw()
        .all();
    };
    return Object.fromEntries(names.map((name) => [name, rows(name)]));
  } finally {
    db.close();
  }
}

/**
 * Every text index's rows, each with its document's _id (null for a row whose document is
 * gone), in _id order: the text file's rowids are the documents'.
 */
export function texts(file: string, textFile: string): Record<string, unknown[]> {
  const db = new Database(textFile, { readonly: true });
  try {
    db.prepare('ATTACH DATABASE ? AS models').run(file);
    const names = db
      .prepare(
        `SELECT name FROM main.sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name`,
      )
      .pluck()
      .all() as string[];
    const rows = (name: string) => {
      const documents = name.slice(0, -'__text'.length);
      return db
        .prepare(
          `SELECT d._id, t.* FROM main."${name}" AS t LEFT JOIN models."${documents}" AS d ON d.rowid = t.rowid ORDER BY d._id`,
        )
        .raw()
        .all();
    };
    return Object.fromEntries(names.map((name) => [name, rows(name)]));
  } finally {
    db.close();
  }
}
