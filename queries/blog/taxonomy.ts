import type { DocumentStore } from '../../infra/document-store/port.js';
import {
  blogCategories,
  blogTagSlugs,
  blogTags,
  type BlogCategoryDoc,
  type BlogTagDoc,
} from '../../contracts/blog/documents.js';

export function findCategory(documents: DocumentStore, id: number): Promise<BlogCategoryDoc | null> {
  return blogCategories(documents).findOne({ _id: id });
}

export function findCategoryBySlug(documents: DocumentStore, slug: string): Promise<BlogCategoryDoc | null> {
  return blogCategories(documents).findOne({ slug });
}

/** Categories by name (case-insensitive), then id. */
export function listCategories(documents: DocumentStore): Promise<BlogCategoryDoc[]> {
  return blogCategories(documents).find({}, { sort: { name_sort: 1, id: 1 } });
}

export function findTag(documents: DocumentStore, id: number): Promise<BlogTagDoc | null> {
  return blogTags(documents).findOne({ _id: id });
}

export async function findTagBySlug(documents: DocumentStore, slug: string): Promise<BlogTagDoc | null> {
  const entry = await blogTagSlugs(documents).findOne({ _id: slug });
  return entry ? blogTags(documents).findOne({ _id: entry.id }) : null;
}

/** Tags by name (case-insensitive), then id. */
export function listTags(documents: DocumentStore): Promise<BlogTagDoc[]> {
  return blogTags(documents).find({}, { sort: { name_sort: 1, id: 1 } });
}
