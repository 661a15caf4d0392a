import type { BlogSettingsChanged } from '../../commands/blog/events.js';
import { blogSettings, SETTINGS_ID } from '../../queries/blog/documents.js';
import { defineProjection } from '../projection.js';

export const blogSettingsProjection = defineProjection({
  name: 'blog-settings',
  handles: ['BlogSettingsChanged'],
  async apply(stored, documents) {
    const data = stored.data as BlogSettingsChanged['data'];
    await blogSettings(documents).put({ _id: SETTINGS_ID, comments_enabled: data.comments_enabled === true });
  },
});
