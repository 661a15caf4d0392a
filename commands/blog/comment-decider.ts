import { ConflictError, NotFoundError, ValidationError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { BlogCommentEvent, BlogCommentFields, BlogPostStatus } from './events.js';
import { checkCommentFields } from './rules.js';

export interface BlogCommentState {
  status: 'new' | 'live' | 'deleted';
  id: number;
  fields: BlogCommentFields | null;
}

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
/** A comment brought in by the fixture import, with the status it already had. */
export type ImportBlogComment = DomainCommand<'ImportBlogComment', { id: number; fields: BlogCommentFields }>;
/** `status` is what the caller sent; only approved and spam are accepted. */
export type ModerateBlogComment = DomainCommand<'ModerateBlogComment', { status: string }>;
export type DeleteBlogComment = DomainCommand<'DeleteBlogComment', Record<string, never>>;
export type BlogCommentCommand = PostBlogComment | ImportBlogComment | ModerateBlogComment | DeleteBlogComment;

/** A post takes comments when published with a publish time that has passed (CONTRACT.md section 7). */
export function takesComments(post: CommentedPost | null, now: string): boolean {
  return post !== null && post.status === 'published' && post.published_at !== null && post.published_at <= now;
}

export const blogCommentDecider: Decider<BlogCommentState, BlogCommentCommand, BlogCommentEvent> = {
  initialState: () => ({ status: 'new', id: 0, fields: null }),

  evolve(state, event) {
    switch (event.type) {
      case 'BlogCommentPosted':
        return { status: 'live', id: event.data.id, fields: event.data.fields };
      case 'BlogCommentModerated':
        return state.fields ? { ...state, fields: { ...state.fields, status: event.data.status } } : state;
      case 'BlogCommentDeleted':
        return { ...state, status: 'deleted' };
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'PostBlogComment': {
        if (state.status !== 'new') throw new ConflictError(`Blog comment ${command.data.id} already exists.`);
        const fields: BlogCommentFields = { ...command.data.fields, status: 'pending' };
        checkCommentFields(fields);
        if (!takesComments(command.data.post, command.data.now)) {
          throw ValidationError.field('post_id', 'The post is not published.');
        }
        return [{ type: 'BlogCommentPosted', data: { id: command.data.id, fields } }];
      }
      case 'ImportBlogComment':
        if (state.status !== 'new') throw new ConflictError(`Blog comment ${command.data.id} already exists.`);
        checkCommentFields(command.data.fields);
        return [{ type: 'BlogCommentPosted', data: command.data }];
      case 'ModerateBlogComment': {
        if (state.status !== 'live') throw new NotFoundError('Blog comment not found.');
        const status = command.data.status;
        if (status !== 'approved' && status !== 'spam') throw ValidationError.field('status', 'Must be approved or spam.');
        return [{ type: 'BlogCommentModerated', data: { id: state.id, status } }];
      }
      case 'DeleteBlogComment':
        if (state.status !== 'live' || !state.fields) throw new NotFoundError('Blog comment not found.');
        return [{ type: 'BlogCommentDeleted', data: { id: state.id, post_id: state.fields.post_id } }];
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
