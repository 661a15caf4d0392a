import { ValidationError } from '../../infra/errors.js';
import { slugify } from '../../infra/text/slug.js';
import { findTagBySlug } from '../../queries/blog/taxonomy.js';
import type { CommandContext } from '../command-context.js';
import { handleCommand } from '../handle-command.js';
import { nextId } from '../sequence.js';
import { BLOG_SEQUENCES, blogTagStream } from './events.js';
import { LIMITS } from './rules.js';
import { blogTagDecider } from './tag-decider.js';

/** Trimmed tag names, one per slug (the first spelling wins); refuses empty names. */
export function normaliseTagNames(names: string[]): string[] {
  const bySlug = new Map<string, string>();
  for (const raw of names) {
    const name = raw.trim();
    if (!name) throw ValidationError.field('tags', 'Tag names must not be empty.');
    if (name.length > LIMITS.name) throw ValidationError.field('tags', `Tag names must be at most ${LIMITS.name} characters.`);
    const slug = slugify(name);
    if (!bySlug.has(slug)) bySlug.set(slug, name);
  }
  if (bySlug.size > LIMITS.tags) throw ValidationError.field('tags', `At most ${LIMITS.tags} tags.`);
  return [...bySlug.values()];
}

/**
 * The tags a post names, creating the missing ones. A tag is known by its slug, so "Maps" and
 * "maps" are one tag and the post carries the name the tag was created with.
 */
export async function resolveTags(ctx: CommandContext, names: string[]): Promise<string[]> {
  const resolved: string[] = [];
  for (const name of normaliseTagNames(names)) {
    const slug = slugify(name);
    // Posts naming one new tag at once: the first creates it, the others find it.
    const tagName = await ctx.exclusive.run(`blog-tag:${slug}`, async () => {
      const existing = await findTagBySlug(ctx.documents, slug);
      if (existing) return existing.name;
      const id = await nextId(ctx, BLOG_SEQUENCES.tag);
      await handleCommand(ctx, blogTagStream(id), blogTagDecider, { type: 'CreateBlogTag', data: { id, name, slug } });
      return name;
    });
    resolved.push(tagName);
  }
  return resolved;
}
