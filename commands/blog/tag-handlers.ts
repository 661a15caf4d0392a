import { ValidationError, VersionConflictError } from '../../infra/errors.js';
import { slugify } from '../../infra/text/slug.js';
import { findTagBySlug } from '../../queries/blog/taxonomy.js';
import type { CommandContext } from '../command-context.js';
import { handleCommand, toDomainEvents } from '../handle-command.js';
import { KeyHeldError, type ReservationEvent } from '../reservations/reservation-decider.js';
import { reservationStream, reserveKey, withReservedKey } from '../reservations/reservations.js';
import { nextId } from '../sequence.js';
import { BLOG_SEQUENCES, blogTagStream, type BlogTagEvent } from '../../contracts/blog/events.js';
import { LIMITS } from './rules.js';
import { tagSlugKey } from './slug-keys.js';
import { blogTagDecider } from './tag-decider.js';

/** Trimmed tag names, one per slug (the first spelling wins); refuses empty names. */
export function normaliseTagNames(names: string[]): string[] {
  const bySlug = new Map<string, string>();
  for (const raw of names) {
    const name = raw.trim();
    if (!name) throw ValidationError.field('tags', 'Tag names must not be empty.');
    if (name.length > LIMITS.name)
      throw ValidationError.field('tags', `Tag names must be at most ${LIMITS.name} characters.`);
    const slug = slugify(name);
    if (!bySlug.has(slug)) bySlug.set(slug, name);
  }
  if (bySlug.size > LIMITS.tags) throw ValidationError.field('tags', `At most ${LIMITS.tags} tags.`);
  return [...bySlug.values()];
}

/**
 * The tags a post names, creating the missing ones. A tag is known by its slug, so "Maps" and
 * "maps" are one tag and the post carries the name the tag was created with. Posts naming one
 * new tag at once (in one process or several) each try to reserve its slug; the one that does
 * creates it, and the others take the winner's name.
 */
export async function resolveTags(ctx: CommandContext, names: string[]): Promise<string[]> {
  const resolved: string[] = [];
  for (const name of normaliseTagNames(names)) {
    const slug = slugify(name);
    const existing = await findTagBySlug(ctx.documents, slug);
    resolved.push(existing ? existing.name : await createTag(ctx, name, slug));
  }
  return resolved;
}

/** Creates the tag unless another writer reserved its slug first; answers the tag's name. */
async function createTag(ctx: CommandContext, name: string, slug: string): Promise<string> {
  const id = await nextId(ctx, BLOG_SEQUENCES.tag);
  const owner = blogTagStream(id);
  const key = tagSlugKey(slug);
  try {
    await reserveKey(ctx, {
      key,
      owner,
      refuse: () => new KeyHeldError(key, 'another tag'),
      inUse: async () => (await findTagBySlug(ctx.documents, slug)) !== null,
    });
  } catch (error) {
    if (!(error instanceof KeyHeldError)) throw error;
    return tagCreatedByOther(ctx, { key, name, slug });
  }
  await withReservedKey(ctx, {
    key,
    owner,
    previous: null,
    write: () =>
      handleCommand(ctx, {
        stream: owner,
        decider: blogTagDecider,
        command: { type: 'CreateBlogTag', data: { id, name, slug } },
        newStream: true,
      }),
  });
  return name;
}

/** How long a post waits for a tag another writer reserved to be created, before it gives up with a 409. */
const TAG_WAIT_MS = 5_000;

/**
 * The name of the tag another writer reserved the slug for, once it is created and projected
 * here: a post must not be projected before its tags, or it would lack their references. If the
 * other writer lets go of the slug (its write failed), this one creates the tag after all.
 */
async function tagCreatedByOther(
  ctx: CommandContext,
  { key, name, slug }: { key: string; name: string; slug: string },
): Promise<string> {
  const deadline = performance.now() + TAG_WAIT_MS;
  while (performance.now() < deadline) {
    const existing = await findTagBySlug(ctx.documents, slug);
    if (existing) return existing.name;
    const last = await ctx.eventStore.readLastEvent(reservationStream(key));
    const [reservation] = toDomainEvents<ReservationEvent>(last ? [last] : []);
    if (reservation?.type !== 'KeyReserved') return createTag(ctx, name, slug);
    const stored = (await ctx.eventStore.readStream(reservation.data.owner)).find((e) => e.type === 'BlogTagCreated');
    if (stored) {
      const [created] = toDomainEvents<BlogTagEvent>([stored]);
      await ctx.waitForProjections(stored.position);
      return created.data.name;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new VersionConflictError(reservationStream(key), 'any', -1);
}
