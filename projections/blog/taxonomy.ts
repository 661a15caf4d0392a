import { BLOG_CATEGORY_VERSIONED, type BlogCategoryEvent, type BlogTagCreated } from '../../commands/blog/events.js';
import { blogCategories, blogTagSlugs, blogTags, type BlogCategoryDoc } from '../../queries/blog/documents.js';
import { defineProjection } from '../projection.js';

export const blogCategoriesProjection = defineProjection({
  name: 'blog-categories',
  handles: [...BLOG_CATEGORY_VERSIONED],
  async apply(stored, documents) {
    const event = { type: stored.type, data: stored.data } as BlogCategoryEvent;
    if (event.type === 'BlogCategoryDeleted') {
      await blogCategories(documents).deleteOne({ _id: event.data.id });
      return;
    }
    const previous = await blogCategories(documents).findOne({ _id: event.data.id });
    await blogCategories(documents).put(
      Object.assign({} as BlogCategoryDoc, event.data.fields, {
        _id: event.data.id,
        id: event.data.id,
        name_sort: event.data.fields.name.toLowerCase(),
        created_at: previous?.created_at ?? stored.metadata.at,
        updated_at: stored.metadata.at,
        version: stored.streamVersion,
      }),
    );
  },
});

export const blogTagsProjection = defineProjection({
  name: 'blog-tags',
  handles: ['BlogTagCreated'],
  async apply(stored, documents) {
    const { id, name, slug } = (stored.data as BlogTagCreated['data']);
    await blogTags(documents).put({ _id: id, id, name, slug, name_sort: name.toLowerCase() });
    await blogTagSlugs(documents).put({ _id: slug, id });
  },
});
