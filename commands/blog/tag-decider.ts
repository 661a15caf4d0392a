import { ConflictError, ValidationError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { BlogTagEvent } from '../../contracts/blog/events.js';
import { checkSlug, LIMITS } from './rules.js';

/** Tags are only ever created (through a post's `tags`); the API has no tag writes. */
export interface BlogTagState {
  exists: boolean;
}

export type CreateBlogTag = DomainCommand<'CreateBlogTag', { id: number; name: string; slug: string }>;
export type BlogTagCommand = CreateBlogTag;

function create({ data }: CreateBlogTag, state: BlogTagState): BlogTagEvent[] {
  if (state.exists) throw new ConflictError(`Blog tag ${data.id} already exists.`);
  if (!data.name.trim() || data.name.length > LIMITS.name) {
    throw ValidationError.field('tags', `Tag names must be 1 to ${LIMITS.name} characters.`);
  }
  checkSlug(data.slug, 'tags');
  return [{ type: 'BlogTagCreated', data }];
}

export const blogTagDecider: Decider<BlogTagState, BlogTagCommand, BlogTagEvent> = {
  initialState: () => ({ exists: false }),

  evolve(state, event) {
    switch (event.type) {
      case 'BlogTagCreated':
        return { exists: true };
      default: {
        const _exhaustive: never = event.type;
        return state;
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'CreateBlogTag':
        return create(command, state);
      default: {
        const _exhaustive: never = command.type;
        return [];
      }
    }
  },
};
