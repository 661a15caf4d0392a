import { ConflictError, NotFoundError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { BlogPostEvent, BlogPostFields } from './events.js';
import { checkPostFields } from './rules.js';
import { definedKeys } from '../defined-keys.js';

export interface BlogPostState {
  status: 'new' | 'live' | 'deleted';
  id: number;
  fields: BlogPostFields | null;
}

/** `now` is the handler's clock reading ('YYYY-MM-DD HH:MM:SS' UTC): deciders read no clock. */
export type CreateBlogPost = DomainCommand<'CreateBlogPost', { id: number; fields: BlogPostFields; now: string }>;
/** Only the keys present in patch change; tags and site_ids replace the whole list. */
export type UpdateBlogPost = DomainCommand<'UpdateBlogPost', { patch: Partial<BlogPostFields>; now: string }>;
export type DeleteBlogPost = DomainCommand<'DeleteBlogPost', Record<string, never>>;
export type BlogPostCommand = CreateBlogPost | UpdateBlogPost | DeleteBlogPost;

/** A published post without a publish time is published now. */
function withPublishTime(fields: BlogPostFields, now: string): BlogPostFields {
  return fields.status === 'published' && fields.published_at === null ? { ...fields, published_at: now } : fields;
}

function publishedFact(id: number, before: BlogPostFields | null, after: BlogPostFields): BlogPostEvent[] {
  if (after.status !== 'published' || before?.status === 'published' || after.published_at === null) return [];
  return [{ type: 'BlogPostPublished', data: { id, published_at: after.published_at } }];
}

export const blogPostDecider: Decider<BlogPostState, BlogPostCommand, BlogPostEvent> = {
  initialState: () => ({ status: 'new', id: 0, fields: null }),

  evolve(state, event) {
    switch (event.type) {
      case 'BlogPostCreated':
      case 'BlogPostUpdated':
        return { status: 'live', id: event.data.id, fields: event.data.fields };
      case 'BlogPostPublished':
        return state;
      case 'BlogPostDeleted':
        return { ...state, status: 'deleted' };
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'CreateBlogPost': {
        if (state.status !== 'new') throw new ConflictError(`Blog post ${command.data.id} already exists.`);
        const fields = withPublishTime(command.data.fields, command.data.now);
        checkPostFields(fields);
        return [{ type: 'BlogPostCreated', data: { id: command.data.id, fields } }, ...publishedFact(command.data.id, null, fields)];
      }
      case 'UpdateBlogPost': {
        if (state.status !== 'live' || !state.fields) throw new NotFoundError('Blog post not found.');
        const { patch, now } = command.data;
        const before = state.fields;
        let fields: BlogPostFields = { ...before, ...definedKeys(patch) };
        // Sending status published without published_at publishes now, except that re-sending it
        // to a post that is already published keeps its publish time.
        const keepsPublishTime = before.status === 'published' && before.published_at !== null;
        if (patch.status === 'published' && patch.published_at === undefined && !keepsPublishTime) {
          fields = { ...fields, published_at: now };
        }
        fields = withPublishTime(fields, now);
        checkPostFields(fields);
        return [{ type: 'BlogPostUpdated', data: { id: state.id, fields } }, ...publishedFact(state.id, before, fields)];
      }
      case 'DeleteBlogPost':
        if (state.status !== 'live') throw new NotFoundError('Blog post not found.');
        return [{ type: 'BlogPostDeleted', data: { id: state.id } }];
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
