import { ValidationError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import {
  deletedRecord,
  liveRecord,
  mustExist,
  mustNotExist,
  newRecord,
  patched,
  withdrawnRecord,
  type RecordState,
} from '../decider-rules.js';
import type { BlogPostEvent, BlogPostFields } from '../../contracts/blog/events.js';
import { checkPostFields } from './rules.js';

export type BlogPostState = RecordState<BlogPostFields>;

/** `now` is the handler's clock reading ('YYYY-MM-DD HH:MM:SS' UTC): deciders read no clock. */
export type CreateBlogPost = DomainCommand<'CreateBlogPost', { id: number; fields: BlogPostFields; now: string }>;
/** Only the keys present in the patch change; tags and site_ids replace the whole list. */
export type UpdateBlogPost = DomainCommand<'UpdateBlogPost', { patch: Partial<BlogPostFields>; now: string }>;
export type DeleteBlogPost = DomainCommand<'DeleteBlogPost', Record<string, never>>;
/**
 * The cascade of a category's delete, for a post the category's stream lists as filed. Its
 * append moves the post's stream on, so a write that filed the post in the category before the
 * delete and is not written yet conflicts, and is decided again against a category that is gone.
 */
export type CategoryDeleted = DomainCommand<'CategoryDeleted', { id: number; category_id: number; now: string }>;
export type BlogPostCommand = CreateBlogPost | UpdateBlogPost | DeleteBlogPost | CategoryDeleted;

const LABEL = 'Blog post';

export const categoryMustExist = (categoryId: number | null): ValidationError =>
  ValidationError.field('category_id', `Blog category ${categoryId} does not exist.`);

/** What a write knows when it sets the publish time: the post before it (null on create) and the patch. */
interface Write {
  before: BlogPostFields | null;
  patch: Partial<BlogPostFields> | null;
  now: string;
}

/**
 * A published post without a publish time is published now; sending status published without
 * published_at publishes now, except that re-sending it to a post that is already published
 * keeps its publish time.
 */
function withPublishTime(fields: BlogPostFields, { before, patch, now }: Write): BlogPostFields {
  const keepsPublishTime = before?.status === 'published' && before.published_at !== null;
  const publishesNow = patch?.status === 'published' && patch.published_at === undefined && !keepsPublishTime;
  const written = publishesNow ? { ...fields, published_at: now } : fields;
  return written.status === 'published' && written.published_at === null ? { ...written, published_at: now } : written;
}

/** The post's Created or Updated event, and BlogPostPublished after it when this write publishes it. */
function written(
  type: 'BlogPostCreated' | 'BlogPostUpdated',
  { id, fields, before }: { id: number; fields: BlogPostFields; before: BlogPostFields | null },
): BlogPostEvent[] {
  const events: BlogPostEvent[] = [{ type, data: { id, fields } }];
  if (fields.status === 'published' && before?.status !== 'published' && fields.published_at !== null) {
    events.push({ type: 'BlogPostPublished', data: { id, published_at: fields.published_at } });
  }
  return events;
}

function create({ data }: CreateBlogPost, state: BlogPostState): BlogPostEvent[] {
  if (state.status === 'withdrawn') throw categoryMustExist(data.fields.category_id);
  mustNotExist(state, LABEL, data.id);
  const fields = withPublishTime(data.fields, { before: null, patch: null, now: data.now });
  checkPostFields(fields);
  return written('BlogPostCreated', { id: data.id, fields, before: null });
}

function update({ data }: UpdateBlogPost, state: BlogPostState): BlogPostEvent[] {
  const before = mustExist(state, LABEL);
  const fields = withPublishTime(patched(before, data.patch), { before, patch: data.patch, now: data.now });
  checkPostFields(fields);
  return written('BlogPostUpdated', { id: state.id, fields, before });
}

function remove(state: BlogPostState): BlogPostEvent[] {
  mustExist(state, LABEL);
  return [{ type: 'BlogPostDeleted', data: { id: state.id } }];
}

/**
 * A post in the deleted category becomes uncategorised; one not written yet never will be; one
 * that attached to it and has since left (or was moving to it) only records that it was told.
 */
function categoryDeleted({ data }: CategoryDeleted, state: BlogPostState): BlogPostEvent[] {
  const { category_id, now } = data;
  if (state.status === 'new') return [{ type: 'BlogPostWithdrawn', data: { id: data.id, category_id } }];
  if (state.status !== 'live' || !state.fields) return [];
  if (state.fields.category_id !== category_id)
    return [{ type: 'BlogPostDetached', data: { id: state.id, category_id } }];
  return update({ type: 'UpdateBlogPost', data: { patch: { category_id: null }, now } }, state);
}

export const blogPostDecider: Decider<BlogPostState, BlogPostCommand, BlogPostEvent> = {
  initialState: () => newRecord(),

  evolve(state, event) {
    switch (event.type) {
      case 'BlogPostCreated':
      case 'BlogPostUpdated':
        return liveRecord(event.data.id, event.data.fields);
      case 'BlogPostDeleted':
        return deletedRecord(state);
      case 'BlogPostWithdrawn':
        return withdrawnRecord(state, event.data.id);
      case 'BlogPostPublished':
      case 'BlogPostDetached':
        return state;
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'CreateBlogPost':
        return create(command, state);
      case 'UpdateBlogPost':
        return update(command, state);
      case 'DeleteBlogPost':
        return remove(state);
      case 'CategoryDeleted':
        return categoryDeleted(command, state);
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
