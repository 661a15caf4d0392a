import { ConflictError, NotFoundError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { BlogCategoryEvent, BlogCategoryFields } from './events.js';
import { checkCategoryFields } from './rules.js';
import { definedKeys } from '../defined-keys.js';

export interface BlogCategoryState {
  status: 'new' | 'live' | 'deleted';
  id: number;
  fields: BlogCategoryFields | null;
}

export type CreateBlogCategory = DomainCommand<'CreateBlogCategory', { id: number; fields: BlogCategoryFields }>;
export type UpdateBlogCategory = DomainCommand<'UpdateBlogCategory', { patch: Partial<BlogCategoryFields> }>;
export type DeleteBlogCategory = DomainCommand<'DeleteBlogCategory', Record<string, never>>;
export type BlogCategoryCommand = CreateBlogCategory | UpdateBlogCategory | DeleteBlogCategory;

export const blogCategoryDecider: Decider<BlogCategoryState, BlogCategoryCommand, BlogCategoryEvent> = {
  initialState: () => ({ status: 'new', id: 0, fields: null }),

  evolve(state, event) {
    switch (event.type) {
      case 'BlogCategoryCreated':
      case 'BlogCategoryUpdated':
        return { status: 'live', id: event.data.id, fields: event.data.fields };
      case 'BlogCategoryDeleted':
        return { ...state, status: 'deleted' };
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'CreateBlogCategory':
        if (state.status !== 'new') throw new ConflictError(`Blog category ${command.data.id} already exists.`);
        checkCategoryFields(command.data.fields);
        return [{ type: 'BlogCategoryCreated', data: command.data }];
      case 'UpdateBlogCategory': {
        if (state.status !== 'live' || !state.fields) throw new NotFoundError('Blog category not found.');
        const patch = definedKeys(command.data.patch);
        const fields = { ...state.fields, ...patch };
        checkCategoryFields(fields);
        return [{ type: 'BlogCategoryUpdated', data: { id: state.id, fields } }];
      }
      case 'DeleteBlogCategory':
        if (state.status !== 'live') throw new NotFoundError('Blog category not found.');
        return [{ type: 'BlogCategoryDeleted', data: { id: state.id } }];
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
