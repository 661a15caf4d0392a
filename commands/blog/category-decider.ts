import { lifecycleDecider, type LifecycleCommandOf, type LifecycleState } from '../lifecycle-decider.js';
import type { BlogCategoryFields } from './events.js';
import { checkCategoryFields } from './rules.js';

export type BlogCategoryState = LifecycleState<BlogCategoryFields>;

/** A category's whole life is the generic one: created, updated by a patch, deleted. */
export const blogCategoryDecider = lifecycleDecider<BlogCategoryFields>()({
  names: {
    create: 'CreateBlogCategory',
    update: 'UpdateBlogCategory',
    delete: 'DeleteBlogCategory',
    created: 'BlogCategoryCreated',
    updated: 'BlogCategoryUpdated',
    deleted: 'BlogCategoryDeleted',
  },
  label: 'Blog category',
  check: checkCategoryFields,
});

export type BlogCategoryCommand = LifecycleCommandOf<typeof blogCategoryDecider>;
export type CreateBlogCategory = Extract<BlogCategoryCommand, { type: 'CreateBlogCategory' }>;
export type UpdateBlogCategory = Extract<BlogCategoryCommand, { type: 'UpdateBlogCategory' }>;
export type DeleteBlogCategory = Extract<BlogCategoryCommand, { type: 'DeleteBlogCategory' }>;
