import type {
  BlogCategoryEvent,
  BlogCategoryFields,
  BlogTagCreated,
  BlogTagFields,
} from '../../commands/blog/events.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { copyWith } from '../../infra/objects/copy-with.js';
import { defineHandlerProjection, defineProjection, type Projected } from '../projection.js';
import { BLOG_COLLECTIONS, type SlugDoc } from './collections.js';

export interface BlogCategoryDoc extends BlogCategoryFields {
  _id: number;
  id: number;
  /** The stream version of the last of its own events folded in: its ETag's (app/conditional). */
  version?: number;
  name_sort: string;
  created_at: string;
  updated_at: string;
  [key: string]: unknown;
}

export interface BlogTagDoc extends BlogTagFields {
  _id: number;
  id: number;
  name_sort: string;
  [key: string]: unknown;
}

/** A category is looked up by its slug (the SQLite store indexes it). */
const CATEGORY_INDEXES = { indexes: ['slug'] } as const;

export const blogCategories = (d: DocumentStore) =>
  d.collection<BlogCategoryDoc>(BLOG_COLLECTIONS.categories, CATEGORY_INDEXES);
export const blogTags = (d: DocumentStore) => d.collection<BlogTagDoc>(BLOG_COLLECTIONS.tags);
export const blogTagSlugs = (d: DocumentStore) => d.collection<SlugDoc>(BLOG_COLLECTIONS.tagSlugs);

/** Categories: one document per category, rewritten whole by each create or update. */
export const blogCategoriesProjection = defineProjection({
  name: 'blog-categories',
  handles: ['BlogCategoryCreated', 'BlogCategoryUpdated', 'BlogCategoryDeleted'],
  collection: blogCategories,
  evolve(previous: BlogCategoryDoc | null, event: Projected<BlogCategoryEvent>): BlogCategoryDoc | null {
    if (event.type === 'BlogCategoryDeleted') return null;
    const { id, fields } = event.data;
    return copyWith(fields, {
      _id: id,
      id,
      name_sort: fields.name.toLowerCase(),
      created_at: previous?.created_at ?? event.metadata.at,
      updated_at: event.metadata.at,
      version: event.streamVersion,
    });
  },
  documentId: (event) => event.data.id,
});

/** Tags, and the slug index that finds them (two collections: the escape hatch). Tags never change once created. */
export const blogTagsProjection = defineHandlerProjection({
  name: 'blog-tags',
  handles: ['BlogTagCreated'],
  async handle(event: Projected<BlogTagCreated>, documents) {
    const { id, ...fields } = event.data;
    await blogTags(documents).put(copyWith(fields, { _id: id, id, name_sort: fields.name.toLowerCase() }));
    await blogTagSlugs(documents).put({ _id: fields.slug, id });
  },
});
