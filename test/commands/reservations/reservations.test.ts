import t from 'tap';
import { join } from 'node:path';
import type { CommandContext } from '../../../commands/command-context.js';
import {
  ABANDONED_AFTER_MS,
  releaseKey,
  reserveKey,
  reserveUniqueSlug,
  reservationStream,
} from '../../../commands/reservations/reservations.js';
import { FixedClock } from '../../../infra/clock/port.js';
import { ValidationError, VersionConflictError } from '../../../infra/errors.js';
import type { EventStore } from '../../../infra/event-store/port.js';
import { sqliteCommandContext } from '../sqlite-context.js';

const refuse = () => ValidationError.field('o:slug', 'Another site has this slug.');
const reservation = (owner: string, inUse = false) => ({
  key: 'site-slug-main',
  owner,
  refuse,
  inUse: async () => inUse,
});

function contextWithClock(
  t: Parameters<typeof sqliteCommandContext>[0],
  file?: string,
): CommandContext & { clock: FixedClock } {
  return { ...sqliteCommandContext(t, file), clock: new FixedClock(new Date('2026-01-02T03:04:05Z')) };
}

t.test('a key is held by one owner until released', async (t) => {
  const ctx = contextWithClock(t);
  await reserveKey(ctx, reservation('site-1'));
  await reserveKey(ctx, reservation('site-1'));
  await t.rejects(reserveKey(ctx, reservation('site-2')), ValidationError, 'another owner gets the duplicate refusal');
  await releaseKey(ctx, 'site-slug-main', 'site-2');
  await t.rejects(reserveKey(ctx, reservation('site-2')), ValidationError, 'only the holder releases it');
  await releaseKey(ctx, 'site-slug-main', 'site-1');
  await reserveKey(ctx, reservation('site-2'));
  const events = await ctx.eventStore.readStream(reservationStream('site-slug-main'));
  t.same(
    events.map((e) => [e.type, (e.data as { owner: string }).owner]),
    [
      ['KeyReserved', 'site-1'],
      ['KeyReleased', 'site-1'],
      ['KeyReserved', 'site-2'],
    ],
  );
});

t.test('a reservation no record uses is taken over once it is old enough', async (t) => {
  const ctx = contextWithClock(t);
  await reserveKey(ctx, reservation('site-1'));
  ctx.clock.advance(ABANDONED_AFTER_MS - 1000);
  await t.rejects(reserveKey(ctx, reservation('site-2')), ValidationError, 'too young');
  ctx.clock.advance(2000);
  await t.rejects(reserveKey(ctx, reservation('site-2', true)), ValidationError, 'old, but its key is in use');
  await reserveKey(ctx, reservation('site-2'));
  await t.rejects(reserveKey(ctx, reservation('site-1')), ValidationError, 'the new holder holds it');
});

t.test('a slug made from a title skips the ones reserved by others', async (t) => {
  const ctx = contextWithClock(t);
  const scope = { keyOf: (slug: string) => `blog_post-slug-${slug}`, taken: async (slug: string) => slug === 'news-2' };
  t.equal(await reserveUniqueSlug(ctx, { scope, base: 'news', owner: 'blog_post-1' }), 'news');
  t.equal(
    await reserveUniqueSlug(ctx, { scope, base: 'news', owner: 'blog_post-2' }),
    'news-3',
    'news is reserved, news-2 in the read models',
  );
  t.equal(
    await reserveUniqueSlug(ctx, { scope, base: 'news', owner: 'blog_post-1' }),
    'news',
    'its own reservation is free to its owner',
  );
});

t.test('two connections to one log reserving one key at once: exactly one wins', async (t) => {
  const file = join(t.testdir(), 'events.sqlite');
  const contexts = [contextWithClock(t, file), contextWithClock(t, file)];
  for (let round = 0; round < 5; round++) {
    const key = `site-slug-race-${round}`;
    const outcomes = await Promise.allSettled(
      contexts.flatMap((ctx, c) =>
        Array.from({ length: 10 }, (_, i) =>
          reserveKey(ctx, { key, owner: `site-${c}-${i}`, refuse, inUse: async () => false }),
        ),
      ),
    );
    t.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1, `round ${round}: one reservation`);
    t.ok(
      outcomes.every((o) => o.status === 'fulfilled' || o.reason instanceof ValidationError),
      'the others are refused',
    );
  }
});

/** The context with its log's reads of a last event and its appends counted, and whether each append conflicted. */
function countingLog(ctx: CommandContext & { clock: FixedClock }) {
  const log = ctx.eventStore;
  const counts = { lastReads: 0, appends: 0, conflicts: 0 };
  const eventStore: EventStore = Object.create(log) as EventStore;
  eventStore.readLastEvent = (stream) => {
    counts.lastReads++;
    return log.readLastEvent(stream);
  };
  eventStore.append = async (stream, events, expected) => {
    counts.appends++;
    try {
      return await log.append(stream, events, expected);
    } catch (error) {
      if (error instanceof VersionConflictError) counts.conflicts++;
      throw error;
    }
  };
  return { ctx: { ...ctx, eventStore }, counts };
}

t.test(
  'a new key is reserved without reading its stream; a key that exists is read after the append conflicts',
  async (t) => {
    const { ctx, counts } = countingLog(contextWithClock(t));
    await reserveKey(ctx, reservation('site-1'));
    t.same(counts, { lastReads: 0, appends: 1, conflicts: 0 }, 'a new key: one append, no read');
    await t.rejects(reserveKey(ctx, reservation('site-2')), ValidationError, 'held by another: still refused');
    t.same(counts, { lastReads: 1, appends: 2, conflicts: 1 }, 'the presumed append conflicted, then one read decided');
  },
);

t.test('an owner that may hold the key already has its stream read first, with no append that conflicts', async (t) => {
  const { ctx, counts } = countingLog(contextWithClock(t));
  await reserveKey(ctx, reservation('site-1'));
  await reserveKey(ctx, { ...reservation('site-1'), ownerMayHold: true });
  t.same(counts, { lastReads: 1, appends: 1, conflicts: 0 }, 'held by its owner: read, nothing appended');
});

t.test(
  'a slug made from a free title is reserved with no read of the log; a taken one searches as before',
  async (t) => {
    const { ctx, counts } = countingLog(contextWithClock(t));
    const scope = { keyOf: (slug: string) => `blog_post-slug-${slug}`, taken: async () => false };
    t.equal(await reserveUniqueSlug(ctx, { scope, base: 'news', owner: 'blog_post-1' }), 'news');
    t.same(counts, { lastReads: 0, appends: 1, conflicts: 0 });
    t.equal(
      await reserveUniqueSlug(ctx, { scope, base: 'news', owner: 'blog_post-2' }),
      'news-2',
      'news is reserved by blog_post-1',
    );
    t.equal(
      await reserveUniqueSlug(ctx, { scope, base: 'news', owner: 'blog_post-1', ownerMayHold: true }),
      'news',
      'an update by its holder keeps it',
    );
  },
);
