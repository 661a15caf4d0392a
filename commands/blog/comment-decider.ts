import { ValidationError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import { deletedRecord, liveRecord, mustExist, mustNotExist, newRecord, type RecordState } from '../decider-rules.js';
import type { BlogCommentEvent, BlogCommentFields, BlogPostStatus } from '../../contracts/blog/events.js';
import { checkCommentFields } from './rules.js';

export type BlogCommentState = RecordState<BlogCommentFields>;

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

const LABEL = 'Blog comment';

/** A post takes comments when published with a publish time that has passed (CONTRACT.md section 7). */
export function takesComments(post: CommentedPost | null, now: string): boolean {
  return post !== null && post.status === 'published' && post.published_at !== null && post.published_at <= now;
}

/** A second create and invalid fields are refused before a post that takes no comments. */
function posted(id: number, fields: BlogCommentFields, state: BlogCommentState): BlogCommentEvent[] {
  mustNotExist(state, LABEL, id);
  checkCommentFields(fields);
  return [{ type: 'BlogCommentPosted', data: { id, fields } }];
}

function post({ data }: PostBlogComment, state: BlogCommentState): BlogCommentEvent[] {
  const events = posted(data.id, { ...data.fields, status: 'pending' }, state);
  if (!takesComments(data.post, data.now)) throw ValidationError.field('post_id', 'The post is not published.');
  return events;
}

function moderate({ data }: ModerateBlogComment, state: BlogCommentState): BlogCommentEvent[] {
  mustExist(state, LABEL);
  const { status } = data;
  if (status !== 'approved' && status !== 'spam') throw ValidationError.field('status', 'Must be approved or spam.');
  return [{ type: 'BlogCommentModerated', data: { id: state.id, status } }];
}

/** The deleted event names the comment's post. */
function remove(state: BlogCommentState): BlogCommentEvent[] {
  const { post_id } = mustExist(state, LABEL);
  return [{ type: 'BlogCommentDeleted', data: { id: state.id, post_id } }];
}

/** A comment is posted (or imported), moderated, deleted; it has no other update. */
export const blogCommentDecider: Decider<BlogCommentState, BlogCommentCommand, BlogCommentEvent> = {
  initialState: () => newRecord(),

  evolve(state, event) {
    switch (event.type) {
      case 'BlogCommentPosted':
        return liveRecord(event.data.id, event.data.fields);
      case 'BlogCommentModerated':
        return state.fields ? { ...state, fields: { ...state.fields, status: event.data.status } } : state;
      case 'BlogCommentDeleted':
        return deletedRecord(state);
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'PostBlogComment':
        return post(command, state);
      case 'ImportBlogComment':
        return posted(command.data.id, command.data.fields, state);
      case 'ModerateBlogComment':
        return moderate(command, state);
      case 'DeleteBlogComment':
        return remove(state);
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
