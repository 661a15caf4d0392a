import type { Decider, DomainCommand } from '../decider.js';
import { fieldsOf, knownFields } from '../../infra/schema/record-fields.js';
import type { BlogSettings, BlogSettingsChanged } from './events.js';
import { BlogSettingsFields } from './fields.js';

/** Blog settings (today: whether the legacy endpoint takes comments); comments are on by default. */
export type ChangeBlogSettings = DomainCommand<'ChangeBlogSettings', BlogSettings>;

export const DEFAULT_BLOG_SETTINGS: BlogSettings = fieldsOf(BlogSettingsFields, {});

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
