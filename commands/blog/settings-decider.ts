import type { Decider, DomainCommand } from '../decider.js';
import { knownFields } from '../../infra/schema/record-fields.js';
import { DEFAULT_BLOG_SETTINGS, type BlogSettings, type BlogSettingsChanged } from '../../contracts/blog/events.js';
import { BlogSettingsFields } from '../../contracts/blog/fields.js';

/** Blog settings (today: whether the legacy endpoint takes comments); comments are on by default (DEFAULT_BLOG_SETTINGS). */
export type ChangeBlogSettings = DomainCommand<'ChangeBlogSettings', BlogSettings>;

export const blogSettingsDecider: Decider<BlogSettings, ChangeBlogSettings, BlogSettingsChanged> = {
  initialState: () => DEFAULT_BLOG_SETTINGS,
  evolve(state, event) {
    switch (event.type) {
      case 'BlogSettingsChanged':
        return { ...event.data };
      default: {
        const _exhaustive: never = event.type;
        return state;
      }
    }
  },

  decide(command) {
    switch (command.type) {
      case 'ChangeBlogSettings':
        return [{ type: 'BlogSettingsChanged', data: knownFields(BlogSettingsFields, command.data) }];
      default: {
        const _exhaustive: never = command.type;
        return [];
      }
    }
  },
};
