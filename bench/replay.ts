import { BLOG_EVENTS, blogCommentStream, blogPostStream, type BlogCommentFields } from '../contracts/blog/events.js';
import { Type } from '@sinclair/typebox';
import { REBUILD_NODE_FLAGS } from '../bin/rebuild-flags.js';
import { parseCheckedOrThrow } from '../infra/checked-json.js';
import { itemStream, mediaStream } from '../commands/platform/kinds.js';
import { ItemFields, MediaFields } from '../contracts/platform/fields.js';
import { fieldsOf } from '../infra/schema/record-fields.js';
import { benchMetadata, generatedPost, importAdmin, tempDataDir } from './datasets.js';
import { EventLogWriter } from './event-log.js';
import type { BenchOptions } from './options.js';
import { scaled } from './options.js';
import { runScript } from './processes.js';
import { figure, type BenchResult } from './report.js';
import { median, round } from './stats.js';
import { blogTimestamp, TextGenerator } from './text.js';

/** Events per generated unit: a post's life, a comment, an item's and a media's. */
const EVENTS_PER_UNIT = 10;

/**
 * A realistic mix in the shapes the modules write: per unit a blog post created, published
 * and edited twice, a comment on it, an item created and edited twice, and its media created
 * and edited once.
 */
export function writeMixedLog(log: EventLogWriter, units: number): void {
  const text = new TextGenerator(3);
  const start = Date.UTC(2024, 0, 1);
  for (let id = 1; id <= units; id++) {
    const at = new Date(start + id * 1000);
    const metadata = benchMetadata(at);
    const published = blogTimestamp(at);
    const post = generatedPost(id, `Post ${id}`, text.sentence(10), text.sentence(60), published);
    log.append(blogPostStream(id), BLOG_EVENTS.postCreated, { id, fields: post }, metadata);
    log.append(blogPostStream(id), BLOG_EVENTS.postPublished, { id, published_at: published }, metadata);
    log.append(
      blogPostStream(id),
      BLOG_EVENTS.postUpdated,
      { id, fields: { ...post, title: `Post ${id} (edited)` } },
      metadata,
    );
    log.append(
      blogPostStream(id),
      BLOG_EVENTS.postUpdated,
      { id, fields: { ...post, excerpt: text.sentence(10) } },
      metadata,
    );
    const comment: BlogCommentFields = {
      post_id: id,
      author_name: 'Reader',
      author_email: 'reader@example.org',
      body: text.sentence(20),
      status: 'approved',
    };
    log.append(blogCommentStream(id), BLOG_EVENTS.commentPosted, { id, fields: comment }, metadata);
    // The fields a create writes: those given, the others their defaults (contracts/platform/fields.ts).
    const item = fieldsOf(ItemFields, { title: `Item ${id}`, description: text.sentence(30), site_ids: [1] });
    log.append(itemStream(id), 'ItemCreated', { id, fields: item }, metadata);
    log.append(
      itemStream(id),
      'ItemUpdated',
      { id, fields: { ...item, title: `Item ${id} (edited)` }, changed: ['title'] },
      metadata,
    );
    log.append(
      itemStream(id),
      'ItemUpdated',
      { id, fields: { ...item, description: text.sentence(30) }, changed: ['description'] },
      metadata,
    );
    const media = fieldsOf(MediaFields, { item_id: id, title: `Scan ${id}`, text: text.sentence(40) });
    log.append(mediaStream(id), 'MediaCreated', { id, fields: media }, metadata);
    log.append(
      mediaStream(id),
      'MediaUpdated',
      { id, fields: { ...media, title: `Scan ${id} (edited)` }, changed: ['title'] },
      metadata,
    );
  }
  for (const sequence of ['blog_post', 'blog_comment', 'item', 'media']) {
    log.append(`sequence-${sequence}`, 'IdAllocated', { id: units }, benchMetadata(new Date(start)));
  }
}

/** What bench/replay-child.ts prints. */
const ReplayOutputSchema = Type.Object({
  events: Type.Number(),
  startup: Type.Number(),
  rebuild: Type.Array(Type.Number()),
  readOnly: Type.Array(Type.Number()),
  rss: Type.Number(),
});

/** 3. Rebuilding every read model from a 1,000,000-event log, in events per second. */
export async function replayBenchmark(options: BenchOptions): Promise<BenchResult> {
  const units = Math.ceil(scaled(options, 1_000_000, 1000) / EVENTS_PER_UNIT);
  const data = tempDataDir('replay');
  try {
    await importAdmin(data.dir);
    const log = new EventLogWriter(data.dir);
    writeMixedLog(log, units);
    log.close();
    // Run as `npm run rebuild` runs: with its node flags.
    const output = parseCheckedOrThrow(
      ReplayOutputSchema,
      await runScript(
        'bench/replay-child.ts',
        [String(options.rounds)],
        // The SQLite log in DATA_DIR, even from a shell that exports EVENTSTORE_URL.
        { DATA_DIR: data.dir, EVENTSTORE_URL: '' },
        true,
        REBUILD_NODE_FLAGS,
      ),
      'The rebuild process’s output',
    );
    const rate = median(output.rebuild);
    const readRate = median(output.readOnly);
    return {
      name: 'replay',
      title: `rebuild every read model from ${output.events} events`,
      status: 'ran',
      setup: { events: output.events, rounds: options.rounds, rss_after_mb: round(output.rss / 2 ** 20, 1) },
      figures: [
        figure('rebuild', round(rate), 'events/s', {
          baseline: { value: round(readRate), unit: 'events/s', label: 'read and decode the log only' },
          target: { op: '>=', value: 100_000 },
          rounds: output.rebuild.map((r) => round(r)),
        }),
        figure('start-up replay', round(output.startup), 'events/s'),
      ],
    };
  } finally {
    data.cleanup();
  }
}
