import { NotFoundError, ValidationError } from '../../infra/errors.js';
import { slugClaimKey, slugify, uniqueSlug } from '../../infra/text/slug.js';
import { blogPosts } from '../../queries/blog/documents.js';
import { findCategory, findCategoryBySlug } from '../../queries/blog/taxonomy.js';
import type { CommandContext } from '../command-context.js';
import { handleCommand } from '../handle-command.js';
import { idFor } from '../sequence.js';
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

/** A given slug must be free; an omitted (or emptied) one is made from the name and kept unique. */
async function slugFor(ctx: CommandContext, given: string | undefined, name: string, exceptId: number | null): Promise<string> {
  if (given) {
    if (await slugTaken(ctx, given, exceptId)) throw ValidationError.field('slug', 'Another blog category has this slug.');
    return given;
  }
  return uniqueSlug(slugify(name, LIMITS.slug - 8), (slug) => slugTaken(ctx, slug, exceptId));
}

/** The key a category's slug claim holds (see slugClaimKey): the slug given, or the base its name gives. */
const categorySlugKey = (given: string | undefined, name: string): string => `blog-category-${slugClaimKey(given || slugify(name, LIMITS.slug - 8))}`;

export async function createCategory(ctx: CommandContext, input: CategoryInput, givenId?: number): Promise<number> {
  if (input.name === undefined) throw ValidationError.field('name', 'This field is required.');
  const given = input.slug?.trim();
  const fields: BlogCategoryFields = { name: input.name, slug: given || slugify(input.name), description: input.description ?? '' };
  checkCategoryFields(fields);
  if (givenId !== undefined && (await ctx.eventStore.readLastEvent(blogCategoryStream(givenId)))) {
    throw ValidationError.field('id', `Blog category ${givenId} already exists.`);
  }
  // From the slug's check until the category is projected, a concurrent claim of the slug waits.
  return ctx.exclusive.run(categorySlugKey(given, fields.name), async () => {
    fields.slug = await slugFor(ctx, given, fields.name, null);
    const id = await idFor(ctx, BLOG_SEQUENCES.category, givenId);
    await handleCommand(ctx, blogCategoryStream(id), blogCategoryDecider, { type: 'CreateBlogCategory', data: { id, fields } });
    return id;
  });
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
  const write = async () => {
    if (input.slug !== undefined) patch.slug = await slugFor(ctx, given, name, id);
    await handleCommand(ctx, blogCategoryStream(id), blogCategoryDecider, { type: 'UpdateBlogCategory', data: { patch } });
  };
  await (input.slug === undefined ? write() : ctx.exclusive.run(categorySlugKey(given, name), write));
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
