import type { DomainEvent } from '../domain-event.js';
import { fieldsOf } from '../../infra/schema/record-fields.js';
import {
  BlogSettingsFields,
  type BlogCategoryFields,
  type BlogCommentFields,
  type BlogPostFields,
  type BlogSettings,
  type BlogTagFields,
} from './fields.js';

/**
 * The blog's events. Other modules rely on the post events (the chatbot indexes posts from
 * them): Created and Updated each carry the whole post, so one event tells what the post is.
 * The records' fields are declared in fields.ts.
 */
export {
  COMMENT_STATUSES,
  POST_STATUSES,
  type BlogCategoryFields,
  type BlogCommentFields,
  type BlogCommentStatus,
  type BlogPostFields,
  type BlogPostStatus,
  type BlogSettings,
  type BlogTagFields,
} from './fields.js';

export const BLOG_EVENTS = {
  postCreated: 'BlogPostCreated',
  postUpdated: 'BlogPostUpdated',
  postPublished: 'BlogPostPublished',
  postDeleted: 'BlogPostDeleted',
  categoryCreated: 'BlogCategoryCreated',
  categoryUpdated: 'BlogCategoryUpdated',
  categoryDeleted: 'BlogCategoryDeleted',
  tagCreated: 'BlogTagCreated',
  commentPosted: 'BlogCommentPosted',
  commentModerated: 'BlogCommentModerated',
  commentDeleted: 'BlogCommentDeleted',
  settingsChanged: 'BlogSettingsChanged',
} as const;

export type BlogPostCreated = DomainEvent<'BlogPostCreated', { id: number; fields: BlogPostFields }>;
export type BlogPostUpdated = DomainEvent<'BlogPostUpdated', { id: number; fields: BlogPostFields }>;
/** An additional fact next to Created/Updated when a post becomes published. */
export type BlogPostPublished = DomainEvent<'BlogPostPublished', { id: number; published_at: string }>;
export type BlogPostDeleted = DomainEvent<'BlogPostDeleted', { id: number }>;
/** Its category was deleted after the post's create attached to it and before the post was written: it never will be. */
export type BlogPostWithdrawn = DomainEvent<'BlogPostWithdrawn', { id: number; category_id: number }>;
/** A category the post attached to (and has since left, or was moving to) was deleted: nothing changes. */
export type BlogPostDetached = DomainEvent<'BlogPostDetached', { id: number; category_id: number }>;
export type BlogPostEvent =
  BlogPostCreated | BlogPostUpdated | BlogPostPublished | BlogPostDeleted | BlogPostWithdrawn | BlogPostDetached;

/** Appended to a category's stream by each post filed in it (see commands/reservations/parent-decider.ts). */
export const BLOG_POST_FILED = 'BlogPostFiled';

export type BlogCategoryCreated = DomainEvent<'BlogCategoryCreated', { id: number; fields: BlogCategoryFields }>;
export type BlogCategoryUpdated = DomainEvent<'BlogCategoryUpdated', { id: number; fields: BlogCategoryFields }>;
export type BlogCategoryDeleted = DomainEvent<'BlogCategoryDeleted', { id: number }>;
export type BlogCategoryEvent = BlogCategoryCreated | BlogCategoryUpdated | BlogCategoryDeleted;

export type BlogTagCreated = DomainEvent<'BlogTagCreated', { id: number } & BlogTagFields>;
export type BlogTagEvent = BlogTagCreated;

export type BlogCommentPosted = DomainEvent<'BlogCommentPosted', { id: number; fields: BlogCommentFields }>;
export type BlogCommentModerated = DomainEvent<'BlogCommentModerated', { id: number; status: 'approved' | 'spam' }>;
export type BlogCommentDeleted = DomainEvent<'BlogCommentDeleted', { id: number; post_id: number }>;
export type BlogCommentEvent = BlogCommentPosted | BlogCommentModerated | BlogCommentDeleted;

/** The settings before any change: comments are on. */
export const DEFAULT_BLOG_SETTINGS: BlogSettings = fieldsOf(BlogSettingsFields, {});
export type BlogSettingsChanged = DomainEvent<'BlogSettingsChanged', BlogSettings>;

/**
 * The events each read model folds into a record's own document (projections/blog/), and so
 * those that make its version, which If-Match names (commands/precondition.ts). A post's
 * BlogPostFiled on its category's stream, and the like, leave it as it was.
 */
export const BLOG_POST_VERSIONED: ReadonlySet<string> = new Set([
  'BlogPostCreated',
  'BlogPostUpdated',
  'BlogPostDeleted',
]);
export const BLOG_CATEGORY_VERSIONED: ReadonlySet<string> = new Set([
  'BlogCategoryCreated',
  'BlogCategoryUpdated',
  'BlogCategoryDeleted',
]);
export const BLOG_COMMENT_VERSIONED: ReadonlySet<string> = new Set([
  'BlogCommentPosted',
  'BlogCommentModerated',
  'BlogCommentDeleted',
]);

export const blogPostStream = (id: number) => `blog_post-${id}`;
export const blogCategoryStream = (id: number) => `blog_category-${id}`;
export const blogTagStream = (id: number) => `blog_tag-${id}`;
export const blogCommentStream = (id: number) => `blog_comment-${id}`;
export const BLOG_SETTINGS_STREAM = 'blog_settings';

/** Sequences of the integer ids (commands/sequence.ts). */
export const BLOG_SEQUENCES = {
  post: 'blog_post',
  category: 'blog_category',
  tag: 'blog_tag',
  comment: 'blog_comment',
} as const;
