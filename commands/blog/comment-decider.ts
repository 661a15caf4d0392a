import { NotFoundError, ValidationError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import { lifecycleDecider, type LifecycleCommandOf, type LifecycleState } from '../lifecycle-decider.js';
import type { BlogCommentEvent, BlogCommentFields, BlogPostStatus } from './events.js';
import { checkCommentFields } from './rules.js';

export type BlogCommentState = LifecycleState<BlogCommentFields>;

/** What the decider must know of the commented post; null when it does not exist. */
export interface CommentedPost {
  status: BlogPostStatus;
  published_at: string | null;
}

/** A visitor's comment: always pending, only on a post that is published and not scheduled. */
export type PostBlogComment = DomainCommand<
  'PostBlogComment',
  { id: number; fields: Omit<BlogCommentFields, 'status'>; post: CommentedPost | null; now: string }
>;
/** `status` is what the caller sent; only approved and spam are accepted. */
export type ModerateBlogComment = DomainCommand<'ModerateBlogComment', { status: string }>;

/**
 * A comment is posted (by a visitor, or brought in by the fixture import with the status it
 * already had: ImportBlogComment is the life cycle's create) and deleted; it has no generic
 * update, only moderation. Its deleted event names its post.
 */
const commentLifecycle = lifecycleDecider<BlogCommentFields>()({
  names: { create: 'ImportBlogComment', delete: 'DeleteBlogComment', created: 'BlogCommentPosted', deleted: 'BlogCommentDeleted' },
  label: 'Blog comment',
  check: checkCommentFields,
  deletedData: (fields) => ({ post_id: fields.post_id }),
});

type CommentLifecycleCommand = LifecycleCommandOf<typeof commentLifecycle>;
export type ImportBlogComment = Extract<CommentLifecycleCommand, { type: 'ImportBlogComment' }>;
export type DeleteBlogComment = Extract<CommentLifecycleCommand, { type: 'DeleteBlogComment' }>;
export type BlogCommentCommand = PostBlogComment | ModerateBlogComment | CommentLifecycleCommand;

/** A post takes comments when published with a publish time that has passed (CONTRACT.md section 7). */
export function takesComments(post: CommentedPost | null, now: string): boolean {
  return post !== null && post.status === 'published' && post.published_at !== null && post.published_at <= now;
}

export const blogCommentDecider: Decider<BlogCommentState, BlogCommentCommand, BlogCommentEvent> = {
  initialState: () => commentLifecycle.initialState(),

  evolve(state, event) {
    switch (event.type) {
      case 'BlogCommentModerated':
        return state.fields ? { ...state, fields: { ...state.fields, status: event.data.status } } : state;
      case 'BlogCommentPosted':
      case 'BlogCommentDeleted':
        return commentLifecycle.evolve(state, event);
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'PostBlogComment': {
        const { id, fields, post, now } = command.data;
        // The life cycle's create refuses a second create and invalid fields first.
        const posted = commentLifecycle.decide({ type: 'ImportBlogComment', data: { id, fields: { ...fields, status: 'pending' } } }, state);
        if (!takesComments(post, now)) throw ValidationError.field('post_id', 'The post is not published.');
        return posted;
      }
      case 'ModerateBlogComment': {
        if (state.status !== 'live') throw new NotFoundError('Blog comment not found.');
        const status = command.data.status;
        if (status !== 'approved' && status !== 'spam') throw ValidationError.field('status', 'Must be approved or spam.');
        return [{ type: 'BlogCommentModerated', data: { id: state.id, status } }];
      }
      case 'ImportBlogComment':
      case 'DeleteBlogComment':
        return commentLifecycle.decide(command, state);
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
