import { ValidationError } from '../../infra/errors.js';
import type { Decider } from '../decider.js';
import { lifecycleDecider, type LifecycleChange, type LifecycleCommandOf, type LifecycleEventOf, type LifecycleState } from '../lifecycle-decider.js';
import type { BlogPostEvent, BlogPostFields, BlogPostPublished } from './events.js';
import { checkPostFields } from './rules.js';

export type BlogPostState = LifecycleState<BlogPostFields>;

export const categoryMustExist = (categoryId: number | null): ValidationError =>
  ValidationError.field('category_id', `Blog category ${categoryId} does not exist.`);

/** A published post without a publish time is published now. */
function withPublishTime(fields: BlogPostFields, now: string): BlogPostFields {
  return fields.status === 'published' && fields.published_at === null ? { ...fields, published_at: now } : fields;
}

/**
 * Sending status published without published_at publishes now, except that re-sending it to a
 * post that is already published keeps its publish time.
 */
function publishTime(fields: BlogPostFields, { before, patch, context }: LifecycleChange<BlogPostFields, { now: string }>): BlogPostFields {
  const keepsPublishTime = before?.status === 'published' && before.published_at !== null;
  const publishesNow = patch?.status === 'published' && patch.published_at === undefined && !keepsPublishTime;
  return withPublishTime(publishesNow ? { ...fields, published_at: context.now } : fields, context.now);
}

/**
 * A post's life cycle: `now` is the handler's clock reading ('YYYY-MM-DD HH:MM:SS' UTC), since
 * deciders read no clock. Only the keys present in an update's patch change; tags and site_ids
 * replace the whole list. CategoryDeleted is the cascade of a category's delete, for a post the
 * category's stream lists as filed: a post in it becomes uncategorised, one not written yet
 * never will be. Its append moves the post's stream on, so a write that filed the post in the
 * category before the delete and is not written yet conflicts, and is decided again against a
 * category that is gone.
 */
const postLifecycle = lifecycleDecider<BlogPostFields, { now: string }>()({
  names: {
    create: 'CreateBlogPost',
    update: 'UpdateBlogPost',
    delete: 'DeleteBlogPost',
    parentDeleted: 'CategoryDeleted',
    created: 'BlogPostCreated',
    updated: 'BlogPostUpdated',
    deleted: 'BlogPostDeleted',
    withdrawn: 'BlogPostWithdrawn',
    detached: 'BlogPostDetached',
    parentKey: 'category_id',
  },
  label: 'Blog post',
  check: checkPostFields,
  complete: publishTime,
  parent: { field: 'category_id', clears: true, refuse: (fields) => categoryMustExist(fields.category_id) },
});

export type BlogPostCommand = LifecycleCommandOf<typeof postLifecycle>;
export type CreateBlogPost = Extract<BlogPostCommand, { type: 'CreateBlogPost' }>;
export type UpdateBlogPost = Extract<BlogPostCommand, { type: 'UpdateBlogPost' }>;
export type DeleteBlogPost = Extract<BlogPostCommand, { type: 'DeleteBlogPost' }>;
export type CategoryDeleted = Extract<BlogPostCommand, { type: 'CategoryDeleted' }>;

/** An additional fact next to Created/Updated when a post becomes published. */
function withPublishedFact(events: LifecycleEventOf<typeof postLifecycle>[], before: BlogPostFields | null): BlogPostEvent[] {
  const facts: BlogPostPublished[] = [];
  for (const event of events) {
    if (event.type !== 'BlogPostCreated' && event.type !== 'BlogPostUpdated') continue;
    const { id, fields: after } = event.data;
    if (after.status !== 'published' || before?.status === 'published' || after.published_at === null) continue;
    facts.push({ type: 'BlogPostPublished', data: { id, published_at: after.published_at } });
  }
  return [...events, ...facts];
}

export const blogPostDecider: Decider<BlogPostState, BlogPostCommand, BlogPostEvent> = {
  initialState: () => postLifecycle.initialState(),

  evolve(state, event) {
    switch (event.type) {
      case 'BlogPostPublished':
        return state;
      case 'BlogPostCreated':
      case 'BlogPostUpdated':
      case 'BlogPostDeleted':
      case 'BlogPostWithdrawn':
      case 'BlogPostDetached':
        return postLifecycle.evolve(state, event);
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'CreateBlogPost':
      case 'UpdateBlogPost':
      case 'CategoryDeleted':
        return withPublishedFact(postLifecycle.decide(command, state), state.fields);
      case 'DeleteBlogPost':
        return postLifecycle.decide(command, state);
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
