import { NotFoundError, ValidationError } from '../../infra/errors.js';
import { slugify } from '../../infra/text/slug.js';
import { commentsOfPost } from '../../queries/blog/comments.js';
import { findPost } from '../../queries/blog/posts.js';
import { findCategory } from '../../queries/blog/taxonomy.js';
import { sites } from '../../contracts/platform/documents.js';
import type { CommandContext } from '../command-context.js';
import { handleCommand } from '../handle-command.js';
import { ifMatching } from '../precondition.js';
import { idFor } from '../sequence.js';
import { attachToParent } from '../reservations/parent-guard.js';
import { releaseKeyQuietly } from '../reservations/reservations.js';
import { postSlugKey, postSlugs, postSlugTaken, reserveSlug, withSlug } from './slug-keys.js';
import { deleteComment } from './comment-handlers.js';
import {
  BLOG_POST_FILED,
  BLOG_POST_VERSIONED,
  BLOG_SEQUENCES,
  blogCategoryStream,
  blogPostStream,
} from '../../contracts/blog/events.js';
import { UpdatePostBody, type CreatePostInput, type UpdatePostInput } from './schemas.js';
import { BlogPostFields } from '../../contracts/blog/fields.js';
import { blogPostDecider, categoryMustExist } from './post-decider.js';
import { checkPostFields, LIMITS } from './rules.js';
import { normaliseTagNames, resolveTags } from './tag-handlers.js';
import { normaliseTimestamp } from './time.js';
import { fieldsOf, presentFields } from '../../infra/schema/record-fields.js';
import { sqlTimestamp } from '../../infra/clock/sql-timestamp.js';

function publishedAtOf(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  if (value.trim() === '') return null;
  const normalised = normaliseTimestamp(value);
  if (normalised === null)
    throw ValidationError.field('published_at', 'Must be a date and time as YYYY-MM-DD HH:MM:SS.');
  return normalised;
}

/** The input as fields: only the keys its schema declares and it carries, with tags and timestamps in their stored form. */
function patchOf(input: UpdatePostInput): Partial<BlogPostFields> {
  const patch: Partial<BlogPostFields> = presentFields(UpdatePostBody, input);
  if (patch.slug !== undefined) patch.slug = patch.slug.trim();
  if (patch.published_at !== undefined) patch.published_at = publishedAtOf(patch.published_at);
  if (patch.tags !== undefined) patch.tags = normaliseTagNames(patch.tags);
  if (patch.site_ids !== undefined) patch.site_ids = [...new Set(patch.site_ids)];
  return patch;
}

async function checkReferences(ctx: CommandContext, patch: Partial<BlogPostFields>): Promise<void> {
  if (
    patch.category_id !== undefined &&
    patch.category_id !== null &&
    !(await findCategory(ctx.documents, patch.category_id))
  ) {
    throw ValidationError.field('category_id', `Blog category ${patch.category_id} does not exist.`);
  }
  if (patch.site_ids && patch.site_ids.length > 0) {
    const found = await sites(ctx.documents).count({ _id: { $in: patch.site_ids } });
    if (found !== patch.site_ids.length) throw ValidationError.field('site_ids', 'Every site must exist.');
  }
}

/** The slug a title gives, short enough to take a `-N` suffix and stay within the limit. */
const slugOfTitle = (title: string): string => slugify(title, LIMITS.slug - 8);

/**
 * The post's slug: a given one must be free; an omitted (or emptied) one is `fromTitle` (see
 * slugOfTitle), kept unique. `exists`: an update, not a create.
 */
function reservePostSlug(
  ctx: CommandContext,
  { given, fromTitle, id, exists }: { given: string | undefined; fromTitle: string; id: number; exists: boolean },
): Promise<string> {
  return reserveSlug(ctx, {
    scope: postSlugs(ctx, id),
    given,
    base: fromTitle,
    owner: blogPostStream(id),
    refuse: postSlugTaken,
    ownerExists: exists,
  });
}

/** Files the post in its category's stream before the post's write, so the category's delete finds it. */
function fileInCategory(
  ctx: CommandContext,
  id: number,
  categoryId: number | null | undefined,
): (() => Promise<void>) | undefined {
  if (categoryId === undefined || categoryId === null) return undefined;
  return () =>
    attachToParent(ctx, {
      stream: blogCategoryStream(categoryId),
      goneTypes: ['BlogCategoryDeleted'],
      attached: { type: BLOG_POST_FILED, data: { id, parent_id: categoryId } },
      refuse: () => categoryMustExist(categoryId),
    });
}

/** A create: the post as written by `authorId`; `givenId` is the fixture's id. */
export interface CreatePost {
  authorId: number | null;
  input: CreatePostInput;
  givenId?: number;
}

/** Creates a post; returns the new id. */
export async function createPost(ctx: CommandContext, { authorId, input, givenId }: CreatePost): Promise<number> {
  const patch = patchOf(input);
  const fromTitle = patch.slug ? '' : slugOfTitle(input.title);
  const draft = fieldsOf(BlogPostFields, {
    ...patch,
    title: input.title,
    author_id: authorId,
    slug: patch.slug || fromTitle,
  });
  checkPostFields(draft);
  await checkReferences(ctx, patch);
  if (givenId !== undefined && (await ctx.eventStore.readLastEvent(blogPostStream(givenId)))) {
    throw ValidationError.field('id', `Blog post ${givenId} already exists.`);
  }
  // A duplicate given slug is refused before an id is taken.
  if (patch.slug && (await postSlugs(ctx, null).taken(patch.slug))) throw postSlugTaken();
  const id = await idFor(ctx, BLOG_SEQUENCES.post, givenId);
  const slug = await reservePostSlug(ctx, { given: patch.slug, fromTitle, id, exists: false });
  await withSlug(ctx, {
    scope: postSlugs(ctx, id),
    slug,
    previous: null,
    owner: blogPostStream(id),
    write: async () => {
      const tags = await resolveTags(ctx, draft.tags);
      await handleCommand(ctx, {
        stream: blogPostStream(id),
        decider: blogPostDecider,
        command: {
          type: 'CreateBlogPost',
          data: { id, fields: { ...draft, slug, tags }, now: sqlTimestamp(ctx.clock.now()) },
        },
        newStream: true,
        beforeAppend: fileInCategory(ctx, id, draft.category_id),
      });
    },
  });
  return id;
}

/** An update of post `id`: only the keys present change; `ifMatch`, the client's If-Match. */
export interface UpdatePost {
  id: number;
  input: UpdatePostInput;
  ifMatch?: readonly number[];
}

/** Changes only the keys present; tags and site_ids replace the whole list. */
export async function updatePost(ctx: CommandContext, { id, input, ifMatch }: UpdatePost): Promise<void> {
  const current = await findPost(ctx.documents, id);
  if (!current) throw new NotFoundError('Blog post not found.');
  const patch = patchOf(input);
  const title = patch.title ?? current.title;
  const fromTitle = patch.slug ? '' : slugOfTitle(title);
  checkPostFields({ ...current, ...patch, slug: patch.slug || fromTitle, tags: patch.tags ?? current.tags });
  await checkReferences(ctx, patch);
  const update = async () => {
    if (patch.tags !== undefined) patch.tags = await resolveTags(ctx, patch.tags);
    await handleCommand(ctx, {
      stream: blogPostStream(id),
      decider: blogPostDecider,
      command: { type: 'UpdateBlogPost', data: { patch, now: sqlTimestamp(ctx.clock.now()) } },
      beforeAppend: fileInCategory(ctx, id, patch.category_id),
      ifMatch: ifMatching(ifMatch, BLOG_POST_VERSIONED),
    });
  };
  if (patch.slug === undefined) return update();
  // A new slug is reserved first; the old one is let go after the write.
  patch.slug = await reservePostSlug(ctx, { given: patch.slug, fromTitle, id, exists: true });
  await withSlug(ctx, {
    scope: postSlugs(ctx, id),
    slug: patch.slug,
    previous: current.slug,
    owner: blogPostStream(id),
    write: update,
  });
}

/**
 * Deletes the post, then its comments, each with its own event. The comments are listed first:
 * the comments read model drops them as soon as it sees the post deleted.
 */
export async function deletePost(ctx: CommandContext, id: number, ifMatch?: readonly number[]): Promise<void> {
  const comments = await commentsOfPost(ctx.documents, id);
  const result = await handleCommand(ctx, {
    stream: blogPostStream(id),
    decider: blogPostDecider,
    command: { type: 'DeleteBlogPost', data: {} },
    ifMatch: ifMatching(ifMatch, BLOG_POST_VERSIONED),
  });
  if (result.state.fields) await releaseKeyQuietly(ctx, postSlugKey(result.state.fields.slug), blogPostStream(id));
  for (const comment of comments) {
    try {
      await deleteComment(ctx, comment.id);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
}

/**
 * Tells a post filed in a deleted category: it becomes uncategorised (or is never written, when
 * its create filed it and is still on its way).
 */
export async function categoryDeleted(ctx: CommandContext, id: number, categoryId: number): Promise<void> {
  await handleCommand(ctx, {
    stream: blogPostStream(id),
    decider: blogPostDecider,
    command: { type: 'CategoryDeleted', data: { id, category_id: categoryId, now: sqlTimestamp(ctx.clock.now()) } },
    retries: 20,
  });
}
