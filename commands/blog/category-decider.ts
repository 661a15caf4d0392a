import type { Decider, DomainCommand } from '../decider.js';
import {
  deletedRecord,
  liveRecord,
  mustExist,
  mustNotExist,
  newRecord,
  patched,
  type RecordState,
} from '../decider-rules.js';
import type { BlogCategoryEvent, BlogCategoryFields } from '../../contracts/blog/events.js';
import { checkCategoryFields } from './rules.js';

export type BlogCategoryState = RecordState<BlogCategoryFields>;

export type CreateBlogCategory = DomainCommand<'CreateBlogCategory', { id: number; fields: BlogCategoryFields }>;
/** Only the keys present in the patch change (PATCH semantics; PUT sends them all). */
export type UpdateBlogCategory = DomainCommand<'UpdateBlogCategory', { patch: Partial<BlogCategoryFields> }>;
export type DeleteBlogCategory = DomainCommand<'DeleteBlogCategory', Record<string, never>>;
export type BlogCategoryCommand = CreateBlogCategory | UpdateBlogCategory | DeleteBlogCategory;

const LABEL = 'Blog category';

function create({ data }: CreateBlogCategory, state: BlogCategoryState): BlogCategoryEvent[] {
  mustNotExist(state, LABEL, data.id);
  checkCategoryFields(data.fields);
  return [{ type: 'BlogCategoryCreated', data: { id: data.id, fields: data.fields } }];
}

function update({ data }: UpdateBlogCategory, state: BlogCategoryState): BlogCategoryEvent[] {
  const fields = patched(mustExist(state, LABEL), data.patch);
  checkCategoryFields(fields);
  return [{ type: 'BlogCategoryUpdated', data: { id: state.id, fields } }];
}

function remove(state: BlogCategoryState): BlogCategoryEvent[] {
  mustExist(state, LABEL);
  return [{ type: 'BlogCategoryDeleted', data: { id: state.id } }];
}

/** A category is created, updated by a patch, deleted (its posts are told by their handler). */
export const blogCategoryDecider: Decider<BlogCategoryState, BlogCategoryCommand, BlogCategoryEvent> = {
  initialState: () => newRecord(),

  evolve(state, event) {
    switch (event.type) {
      case 'BlogCategoryCreated':
      case 'BlogCategoryUpdated':
        return liveRecord(event.data.id, event.data.fields);
      case 'BlogCategoryDeleted':
        return deletedRecord(state);
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'CreateBlogCategory':
        return create(command, state);
      case 'UpdateBlogCategory':
        return update(command, state);
      case 'DeleteBlogCategory':
        return remove(state);
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
