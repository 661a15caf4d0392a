import { ValidationError } from '../../infra/errors.js';
import { postIdBySlug } from '../../queries/blog/posts.js';
import { findCategoryBySlug } from '../../queries/blog/taxonomy.js';
import type { CommandContext } from '../command-context.js';
import { reserveKey, reserveUniqueSlug, withReservedKey, type SlugScope } from '../reservations/reservations.js';

/**
 * The blog's unique slugs (posts, categories, tags), each reserved in the event store under
 * `<kind>-slug-<slug>` (commands/reservations) after the read models said it is free.
 */
export const postSlugKey = (slug: string): string => `blog_post-slug-${slug}`;
export const categorySlugKey = (slug: string): string => `blog_category-slug-${slug}`;
export const tagSlugKey = (slug: string): string => `blog_tag-slug-${slug}`;

export const postSlugTaken = () => ValidationError.field('slug', 'Another blog post has this slug.');
export const categorySlugTaken = () => ValidationError.field('slug', 'Another blog category has this slug.');

export function postSlugs(ctx: CommandContext, exceptId: number | null): SlugScope {
  return {
    keyOf: postSlugKey,
    async taken(slug) {
      const owner = await postIdBySlug(ctx.documents, slug);
      return owner !== null && owner !== exceptId;
    },
  };
}

export function categorySlugs(ctx: CommandContext, exceptId: number | null): SlugScope {
  return {
    keyOf: categorySlugKey,
    async taken(slug) {
      const clash = await findCategoryBySlug(ctx.documents, slug);
      return clash !== null && clash.id !== exceptId;
    },
  };
}

/**
 * Reserves a slug for `owner`: a given one must be free (else `refuse`); an omitted one is the
 * first free of `base`, `base-2`, ... Returns the slug. `ownerExists`: an update, whose owner
 * may hold the slug already (see KeyReservation.ownerMayHold).
 */
export async function reserveSlug(
  ctx: CommandContext,
  {
    scope,
    given,
    base,
    owner,
    refuse,
    ownerExists,
  }: {
    scope: SlugScope;
    given: string | undefined;
    base: string;
    owner: string;
    refuse: () => ValidationError;
    ownerExists: boolean;
  },
): Promise<string> {
  if (!given) return reserveUniqueSlug(ctx, { scope, base, owner, ownerMayHold: ownerExists });
  if (await scope.taken(given)) throw refuse();
  await reserveKey(ctx, {
    key: scope.keyOf(given),
    owner,
    refuse,
    inUse: () => scope.taken(given),
    ownerMayHold: ownerExists,
  });
  return given;
}

/**
 * Runs a write that gives `owner` the slug `slug` in place of `previous` (null on a create):
 * the slug is already reserved; a failed write lets go of it, a done one lets go of `previous`.
 */
export function withSlug<T>(
  ctx: CommandContext,
  {
    scope,
    slug,
    previous,
    owner,
    write,
  }: { scope: SlugScope; slug: string; previous: string | null; owner: string; write: () => Promise<T> },
): Promise<T> {
  return withReservedKey(ctx, {
    key: scope.keyOf(slug),
    owner,
    previous: previous === null ? null : scope.keyOf(previous),
    write,
  });
}
