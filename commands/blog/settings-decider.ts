import type { Decider, DomainCommand } from '../decider.js';
import type { BlogSettings, BlogSettingsChanged } from './events.js';

/** Blog settings (today: whether the legacy endpoint takes comments); comments are on by default. */
export type ChangeBlogSettings = DomainCommand<'ChangeBlogSettings', BlogSettings>;

export const DEFAULT_BLOG_SETTINGS: BlogSettings = { comments_enabled: true };

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
        return [{ type: 'BlogSettingsChanged', data: { comments_enabled: command.data.comments_enabled } }];
      default: {
        const _exhaustive: never = command.type;
        return [];
      }
    }
  },
};
