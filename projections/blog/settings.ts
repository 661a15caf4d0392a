import type { BlogSettings, BlogSettingsChanged } from '../../commands/blog/events.js';
import { BlogSettingsFields } from '../../commands/blog/fields.js';
import { copyWith } from '../../infra/objects/copy-with.js';
import { fieldsOf } from '../../infra/schema/record-fields.js';
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
  evolve: (_document: BlogSettingsDoc | null, event: Projected<BlogSettingsChanged>): BlogSettingsDoc =>
    copyWith({ _id: SETTINGS_ID }, fieldsOf(BlogSettingsFields, event.data)),
});
