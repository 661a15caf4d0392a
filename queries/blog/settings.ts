import { DEFAULT_BLOG_SETTINGS, type BlogSettings } from '../../contracts/blog/events.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { blogSettings, SETTINGS_ID } from '../../contracts/blog/documents.js';

export async function readBlogSettings(documents: DocumentStore): Promise<BlogSettings> {
  const doc = await blogSettings(documents).findOne({ _id: SETTINGS_ID });
  return doc ? { comments_enabled: doc.comments_enabled } : DEFAULT_BLOG_SETTINGS;
}
