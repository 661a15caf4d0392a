import { NotFoundError, ValidationError } from '../../infra/errors.js';
import { fieldsOf, presentFields } from '../../infra/schema/record-fields.js';
import { slugify } from '../../infra/text/slug.js';
import { blogPosts } from '../../contracts/blog/documents.js';
import { findCategory } from '../../queries/blog/taxonomy.js';
import type { CommandContext } from '../command-context.js';
import { handleCommand } from '../handle-command.js';
import { ifMatching } from '../precondition.js';
import { idFor } from '../sequence.js';
import { attachedChildIds, PARENT_WRITE_RETRIES } from '../reservations/parent-guard.js';
import { releaseKeyQuietly } from '../reservations/reservations.js';
import { categorySlugKey, categorySlugs, categorySlugTaken, reserveSlug, withSlug } from './slug-keys.js';
import { blogCategoryDecider } from './category-decider.js';
import {
  BLOG_CATEGORY_VERSIONED,
  BLOG_POST_FILED,
  BLOG_SEQUENCES,
  blogCategoryStream,
} from '../../contracts/blog/events.js';
import { BlogCategoryFields } from '../../contracts/blog/fields.js';
import { categoryDeleted } from './post-handlers.js';
import { UpdateCategoryBody, type CreateCategoryInput, type UpdateCategoryInput } from './schemas.js';
import { checkCategoryFields, LIMITS } from './rules.js';

/** The category's slug: a given one must be free; an omitted (or emptied) one is made from the name and kept unique. */
function reserveCategorySlug(
  ctx: CommandContext,
  { given, name, id, exists }: { given: string | undefined; name: string; id: number; exists: boolean },
): Promise<string> {
  const base = slugify(name, LIMITS.slug - 8);
  return reserveSlug(ctx, {
    scope: categorySlugs(ctx, id),
    given,
    base,
    owner: blogCategoryStream(id),
    refuse: categorySlugTaken,
    ownerExists: exists,
  });
}

export async function createCategory(
  ctx: CommandContext,
  input: CreateCategoryInput,
  givenId?: number,
): Promise<number> {
  const given = input.slug?.trim();
  const fields = fieldsOf(BlogCategoryFields, { ...input, slug: given || slugify(input.name) });
  checkCategoryFields(fields);
  if (givenId !== undefined && (await ctx.eventStore.readLastEvent(blogCategoryStream(givenId)))) {
    throw ValidationError.field('id', `Blog category ${givenId} already exists.`);
  }
  // A duplicate given slug is refused before an id is taken.
  if (given && (await categorySlugs(ctx, null).taken(given))) throw categorySlugTaken();
  const id = await idFor(ctx, BLOG_SEQUENCES.category, givenId);
  fields.slug = await reserveCategorySlug(ctx, { given, name: fields.name, id, exists: false });
  await withSlug(ctx, {
    scope: categorySlugs(ctx, id),
    slug: fields.slug,
    previous: null,
    owner: blogCategoryStream(id),
    write: () =>
      handleCommand(ctx, {
        stream: blogCategoryStream(id),
        decider: blogCategoryDecider,
        command: { type: 'CreateBlogCategory', data: { id, fields } },
      }),
  });
  return id;
}

/** An update of category `id`: only the keys present change; `ifMatch`, the client's If-Match. */
export interface UpdateCategory {
  id: number;
  input: UpdateCategoryInput;
  ifMatch?: readonly number[];
}

export async function updateCategory(ctx: CommandContext, { id, input, ifMatch }: UpdateCategory): Promise<void> {
  const current = await findCategory(ctx.documents, id);
  if (!current) throw new NotFoundError('Blog category not found.');
  // The slug is reserved below, when given: a given one must be free.
  const { slug: _slug, ...present } = presentFields(UpdateCategoryBody, input);
  const patch: Partial<BlogCategoryFields> = present;
  const name = patch.name ?? current.name;
  const given = input.slug?.trim();
  checkCategoryFields({ ...current, ...patch, slug: given || slugify(name) });
  const update = () =>
    handleCommand(ctx, {
      stream: blogCategoryStream(id),
      decider: blogCategoryDecider,
      command: { type: 'UpdateBlogCategory', data: { patch } },
      retries: PARENT_WRITE_RETRIES,
      ifMatch: ifMatching(ifMatch, BLOG_CATEGORY_VERSIONED),
    });
  if (input.slug === undefined) {
    await update();
    return;
  }
  // A new slug is reserved first; the old one is let go after the write.
  patch.slug = await reserveCategorySlug(ctx, { given, name, id, exists: true });
  await withSlug(ctx, {
    scope: categorySlugs(ctx, id),
    slug: patch.slug,
    previous: current.slug,
    owner: blogCategoryStream(id),
    write: update,
  });
}

/**
 * Deletes the category, lets go of its slug, and uncategorises its posts: every post filed in it
 * by its stream (a create or move that filed a post before the delete may not be written yet)
 * and every post the read models place in it (posts older than the guard).
 */
export async function deleteCategory(ctx: CommandContext, id: number, ifMatch?: readonly number[]): Promise<void> {
  const result = await handleCommand(ctx, {
    stream: blogCategoryStream(id),
    decider: blogCategoryDecider,
    command: { type: 'DeleteBlogCategory', data: {} },
    retries: PARENT_WRITE_RETRIES,
    ifMatch: ifMatching(ifMatch, BLOG_CATEGORY_VERSIONED),
  });
  if (result.state.fields)
    await releaseKeyQuietly(ctx, categorySlugKey(result.state.fields.slug), blogCategoryStream(id));
  const filed = await attachedChildIds(ctx, blogCategoryStream(id), BLOG_POST_FILED);
  const placed = (await blogPosts(ctx.documents).find({ category_id: id })).map((post) => post.id);
  for (const postId of new Set([...filed, ...placed])) await categoryDeleted(ctx, postId, id);
}
