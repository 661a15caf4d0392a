import type { BlogSettings } from '../../contracts/blog/events.js';
import { BlogSettingsFields } from '../../contracts/blog/fields.js';
import { fieldsOf } from '../../infra/schema/record-fields.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { blogSettings, SETTINGS_ID } from '../../contracts/blog/documents.js';

export async function readBlogSettings(documents: DocumentStore): Promise<BlogSettings> {
  const doc = await blogSettings(documents).findOne({ _id: SETTINGS_ID });
  // The settings it holds, each setting never changed at its default.
  return fieldsOf(BlogSettingsFields, doc ?? {});
}
