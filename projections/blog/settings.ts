import type { BlogSettingsChanged } from '../../contracts/blog/events.js';
import { BlogSettingsFields } from '../../contracts/blog/fields.js';
import { copyWith } from '../../infra/objects/copy-with.js';
import { fieldsOf } from '../../infra/schema/record-fields.js';
import { defineProjection, type Projected } from '../projection.js';
import { blogSettings, SETTINGS_ID, type BlogSettingsDoc } from '../../contracts/blog/documents.js';

/** The blog's settings: one document, rewritten whole by each change. */
export const blogSettingsProjection = defineProjection({
  name: 'blog-settings',
  handles: ['BlogSettingsChanged'],
  collection: blogSettings,
  documentId: () => SETTINGS_ID,
  evolve: (_document: BlogSettingsDoc | null, event: Projected<BlogSettingsChanged>): BlogSettingsDoc =>
    copyWith({ _id: SETTINGS_ID }, fieldsOf(BlogSettingsFields, event.data)),
});
