import type { BlogCategoryEvent, BlogTagCreated } from '../../contracts/blog/events.js';
import { copyWith } from '../../infra/objects/copy-with.js';
import { defineHandlerProjection, defineProjection, type Projected } from '../projection.js';
import { blogCategories, blogTags, blogTagSlugs, type BlogCategoryDoc } from '../../contracts/blog/documents.js';

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
