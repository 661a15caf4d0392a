import { NotFoundError, ValidationError } from '../../infra/errors.js';
import { slugify } from '../../infra/text/slug.js';
import { blogPosts } from '../../queries/blog/documents.js';
import { findCategory, findCategoryBySlug } from '../../queries/blog/taxonomy.js';
import type { CommandContext } from '../command-context.js';
import { handleCommand } from '../handle-command.js';
import { idFor } from '../sequence.js';
import { claimSlug, type ClaimedSlug } from '../slug-claims.js';
import { blogCategoryDecider } from './category-decider.js';
import { BLOG_SEQUENCES, blogCategoryStream, type BlogCategoryFields } from './events.js';
import { updatePost } from './post-handlers.js';
import { checkCategoryFields, LIMITS } from './rules.js';

export interface CategoryInput {
  name?: string;
  slug?: string;
  description?: string;
}

async function slugTaken(ctx: CommandContext, slug: string, exceptId: number | null): Promise<boolean> {
  const clash = await findCategoryBySlug(ctx.documents, slug);
  return clash !== null && clash.id !== exceptId;
}

/**
 * Claims the category's slug until its write is projected: a given one must be free; an omitted
 * (or emptied) one is made from the name and kept unique.
 */
async function claimCategorySlug(ctx: CommandContext, given: string | undefined, name: string, exceptId: number | null): Promise<ClaimedSlug> {
  const claimed = await claimSlug(ctx.slugClaims, 'blog-category', given, slugify(name, LIMITS.slug - 8), (slug) => slugTaken(ctx, slug, exceptId));
  if (!claimed) throw ValidationError.field('slug', 'Another blog category has this slug.');
  return claimed;
}

export async function createCategory(ctx: CommandContext, input: CategoryInput, givenId?: number): Promise<number> {
  if (input.name === undefined) throw ValidationError.field('name', 'This field is required.');
  const given = input.slug?.trim();
  const fields: BlogCategoryFields = { name: input.name, slug: given || slugify(input.name), description: input.description ?? '' };
  checkCategoryFields(fields);
  if (givenId !== undefined && (await ctx.eventStore.readLastEvent(blogCategoryStream(givenId)))) {
    throw ValidationError.field('id', `Blog category ${givenId} already exists.`);
  }
  const { slug, release } = await claimCategorySlug(ctx, given, fields.name, null);
  try {
    fields.slug = slug;
    const id = await idFor(ctx, BLOG_SEQUENCES.category, givenId);
    await handleCommand(ctx, blogCategoryStream(id), blogCategoryDecider, { type: 'CreateBlogCategory', data: { id, fields } });
    return id;
  } finally {
    release();
  }
}

export async function updateCategory(ctx: CommandContext, id: number, input: CategoryInput): Promise<void> {
  const current = await findCategory(ctx.documents, id);
  if (!current) throw new NotFoundError('Blog category not found.');
  const patch: Partial<BlogCategoryFields> = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.description !== undefined) patch.description = input.description;
  const name = patch.name ?? current.name;
  const given = input.slug?.trim();
  checkCategoryFields({ name, slug: given || slugify(name), description: patch.description ?? current.description });
  const claimed = input.slug === undefined ? null : await claimCategorySlug(ctx, given, name, id);
  try {
    if (claimed) patch.slug = claimed.slug;
    await handleCommand(ctx, blogCategoryStream(id), blogCategoryDecider, { type: 'UpdateBlogCategory', data: { patch } });
  } finally {
    claimed?.release();
  }
}

/** Deletes the category; its posts become uncategorised, each through a post update. */
export async function deleteCategory(ctx: CommandContext, id: number): Promise<void> {
  await handleCommand(ctx, blogCategoryStream(id), blogCategoryDecider, { type: 'DeleteBlogCategory', data: {} });
  for (const post of await blogPosts(ctx.documents).find({ category_id: id })) {
    try {
      await updatePost(ctx, post.id, { category_id: null });
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
}
