import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BLOG_EVENTS,
  BLOG_SEQUENCES,
  blogCategoryStream,
  blogPostStream,
  type BlogPostFields,
} from '../contracts/blog/events.js';
import type { EventMetadata } from '../infra/event-store/port.js';
import { EventLogWriter } from './event-log.js';
import { EMBEDDED_ENV, runScript } from './processes.js';
import { blogTimestamp, TextGenerator } from './text.js';
import { WikipediaText } from './wikipedia-text.js';

export const ADMIN_KEY = { identity: 'bench-admin', credential: 'bench-admin-credential' };
export const ADMIN_ID = 1;
/** The benchmarks' global administrator, with ADMIN_KEY, as a fixture's `users` entry. */
export const BENCH_ADMIN = {
  id: ADMIN_ID,
  email: 'bench@example.org',
  name: 'Bench',
  role: 'global_admin',
  password: 'bench-password-1',
  api_keys: [{ ...ADMIN_KEY, label: 'bench' }],
};
/** The one site of the benchmarks' fixtures. */
export const BENCH_SITE = { id: 1, slug: 'main', title: 'Main site' };

/** A fresh DATA_DIR; removed by `cleanup` unless BENCH_KEEP is set. */
export function tempDataDir(name: string): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  return {
    dir,
    cleanup() {
      if (!process.env.BENCH_KEEP) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One global admin with an API key, imported through the real CLI (its password is hashed). */
export async function importAdmin(dataDir: string): Promise<void> {
  const fixture = join(dataDir, 'bench-fixture.json');
  writeFileSync(
    fixture,
    JSON.stringify({
      users: [BENCH_ADMIN],
      sites: [BENCH_SITE],
    }),
  );
  await runScript('bin/import.ts', [fixture], { ...EMBEDDED_ENV, DATA_DIR: dataDir });
  rmSync(fixture);
}

export function keyQuery(): string {
  return `key_identity=${encodeURIComponent(ADMIN_KEY.identity)}&key_credential=${encodeURIComponent(ADMIN_KEY.credential)}`;
}

export function benchMetadata(at: Date): EventMetadata {
  return { userId: ADMIN_ID, at: at.toISOString() };
}

/** A published post of the admin on site 1, in the fields the blog module writes. */
export function generatedPost(
  id: number,
  title: string,
  excerpt: string,
  contentText: string,
  publishedAt: string,
): BlogPostFields {
  return {
    title,
    slug: `post-${id}`,
    excerpt,
    content: `<p>${contentText}</p>`,
    status: 'published',
    author_id: ADMIN_ID,
    category_id: null,
    featured_image_asset_id: null,
    featured_image_url: null,
    published_at: publishedAt,
    tags: [],
    site_ids: [1],
  };
}

export interface PostShape {
  /** Words of body text; 120 or fewer make exactly one chatbot chunk per post. */
  contentWords: number;
  /** The words: made-up syllable words (`TextGenerator`, the default) or English by frequency (`WikipediaText`). */
  words?: 'syllables' | 'english';
  /**
   * Categories `category-1`.. and tags `topic-0`.. spread over the posts in turn (post n in
   * category 1 + n % categories, tagged topic-(n % tags)); none without.
   */
  taxonomy?: { categories: number; tags: number };
}

/**
 * Published blog posts with the events the blog module writes for a create (Created, then
 * Published), ids 1..count, and the id sequence moved past them so new posts get fresh ids.
 */
export function writeBlogPosts(log: EventLogWriter, count: number, shape: PostShape, firstId = 1): void {
  const text = shape.words === 'english' ? new WikipediaText() : new TextGenerator(7);
  const start = Date.UTC(2024, 0, 1);
  const taxonomy = shape.taxonomy;
  if (taxonomy) {
    for (let id = 1; id <= taxonomy.categories; id++)
      log.append(
        blogCategoryStream(id),
        BLOG_EVENTS.categoryCreated,
        { id, fields: { name: `Category ${id}`, slug: `category-${id}`, description: '' } },
        benchMetadata(new Date(start)),
      );
    log.append(
      `sequence-${BLOG_SEQUENCES.category}`,
      'IdAllocated',
      { id: taxonomy.categories },
      benchMetadata(new Date(start)),
    );
  }
  for (let n = 0; n < count; n++) {
    const id = firstId + n;
    const at = new Date(start + n * 60_000);
    const published = blogTimestamp(at);
    const fields = generatedPost(
      id,
      `Post ${id} ${text.sentence(3)}`,
      text.sentence(12),
      text.sentence(shape.contentWords),
      published,
    );
    if (taxonomy) {
      fields.category_id = 1 + (id % taxonomy.categories);
      fields.tags = [`Topic ${id % taxonomy.tags}`];
    }
    const metadata = benchMetadata(at);
    log.append(blogPostStream(id), BLOG_EVENTS.postCreated, { id, fields }, metadata);
    log.append(blogPostStream(id), BLOG_EVENTS.postPublished, { id, published_at: published }, metadata);
  }
  log.append(
    `sequence-${BLOG_SEQUENCES.post}`,
    'IdAllocated',
    { id: firstId + count - 1 },
    benchMetadata(new Date(start)),
  );
}

/** A DATA_DIR with the admin and `count` published posts. */
export async function blogDataDir(
  name: string,
  count: number,
  shape: PostShape,
): Promise<{ dir: string; cleanup(): void }> {
  const data = tempDataDir(name);
  try {
    await importAdmin(data.dir);
    const log = new EventLogWriter(data.dir);
    writeBlogPosts(log, count, shape);
    log.close();
    return data;
  } catch (error) {
    data.cleanup();
    throw error;
  }
}
