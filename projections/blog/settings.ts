import type { BlogSettings, BlogSettingsChanged } from '../../contracts/blog/events.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { defineProjection, type Projected } from '../projection.js';
import { BLOG_COLLECTIONS } from './collections.js';

export interface BlogSettingsDoc extends BlogSettings {
  _id: string;
  [key: string]: unknown;
}

export const SETTINGS_ID = 'settings';

export const blogSettings = (d: DocumentStore) => d.collection<BlogSettingsDoc>(BLOG_COLLECTIONS.settings);

/** The blog's settings: one document, rewritten whole by each change. */
export const blogSettingsProjection = defineProjection({
  name: 'blog-settings',
  handles: ['BlogSettingsChanged'],
  collection: blogSettings,
  documentId: () => SETTINGS_ID,
  evolve: (_document: BlogSettingsDoc | null, event: Projected<BlogSettingsChanged>): BlogSettingsDoc => ({
    _id: SETTINGS_ID,
    comments_enabled: event.data.comments_enabled === true,
  }),
});
