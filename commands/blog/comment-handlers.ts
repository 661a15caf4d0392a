import { ValidationError } from '../../infra/errors.js';
import type { CommandContext } from '../command-context.js';
import { foldEvents } from '../decider.js';
import { handleCommand, toDomainEvents } from '../handle-command.js';
import { ifMatching } from '../precondition.js';
import { idFor, nextId } from '../sequence.js';
import { blogCommentDecider, type CommentedPost } from './comment-decider.js';
import {
  BLOG_COMMENT_VERSIONED,
  BLOG_SEQUENCES,
  blogCommentStream,
  blogPostStream,
  type BlogCommentFields,
  type BlogPostEvent,
} from '../../contracts/blog/events.js';
import { blogPostDecider } from './post-decider.js';
import { checkCommentFields } from './rules.js';
import { CreateCommentBody, type CommentInput, type ModerateCommentInput } from './schemas.js';
import { sqlTimestamp } from '../../infra/clock/sql-timestamp.js';
import { knownFields } from '../../infra/schema/record-fields.js';

/** The post as its own stream says (the write side decides on the source of truth). */
export async function commentedPost(ctx: CommandContext, postId: number): Promise<CommentedPost | null> {
  const state = foldEvents(
    blogPostDecider,
    toDomainEvents<BlogPostEvent>(await ctx.eventStore.readStream(blogPostStream(postId))),
  );
  return state.status === 'live' && state.fields
    ? { status: state.fields.status, published_at: state.fields.published_at }
    : null;
}

/** A visitor's comment: pending, and only on a published post. Returns the new id. */
export async function postComment(ctx: CommandContext, input: CommentInput): Promise<number> {
  const fields = {
    ...knownFields(CreateCommentBody, input),
    author_name: input.author_name.trim(),
    author_email: input.author_email.trim(),
  };
  checkCommentFields({ ...fields, status: 'pending' });
  const post = await commentedPost(ctx, input.post_id);
  const now = sqlTimestamp(ctx.clock.now());
  // Checked before an id is allocated; the decider checks again.
  if (!post || post.status !== 'published' || post.published_at === null || post.published_at > now) {
    throw ValidationError.field('post_id', 'The post is not published.');
  }
  const id = await nextId(ctx, BLOG_SEQUENCES.comment);
  await handleCommand(ctx, {
    stream: blogCommentStream(id),
    decider: blogCommentDecider,
    command: { type: 'PostBlogComment', data: { id, fields, post, now } },
  });
  return id;
}

/** A comment from the fixture, with its status as given. */
export async function importComment(ctx: CommandContext, fields: BlogCommentFields, givenId?: number): Promise<number> {
  checkCommentFields(fields);
  const id = await idFor(ctx, BLOG_SEQUENCES.comment, givenId);
  await handleCommand(ctx, {
    stream: blogCommentStream(id),
    decider: blogCommentDecider,
    command: { type: 'ImportBlogComment', data: { id, fields } },
  });
  return id;
}

/** A moderation of comment `id`; `ifMatch`, the client's If-Match. */
export interface ModerateComment {
  id: number;
  input: ModerateCommentInput;
  ifMatch?: readonly number[];
}

export async function moderateComment(ctx: CommandContext, { id, input, ifMatch }: ModerateComment): Promise<void> {
  await handleCommand(ctx, {
    stream: blogCommentStream(id),
    decider: blogCommentDecider,
    command: { type: 'ModerateBlogComment', data: { status: input.status } },
    ifMatch: ifMatching(ifMatch, BLOG_COMMENT_VERSIONED),
  });
}

export async function deleteComment(ctx: CommandContext, id: number, ifMatch?: readonly number[]): Promise<void> {
  await handleCommand(ctx, {
    stream: blogCommentStream(id),
    decider: blogCommentDecider,
    command: { type: 'DeleteBlogComment', data: {} },
    ifMatch: ifMatching(ifMatch, BLOG_COMMENT_VERSIONED),
  });
}
