/**
 * The blog's read models as its queries read them: each document type and collection is
 * declared beside the projection that writes it (projections/blog/), and only named here.
 */
export { BLOG_COLLECTIONS, type SlugDoc } from '../../projections/blog/collections.js';
export { blogComments, type BlogCommentDoc } from '../../projections/blog/comments.js';
export { blogPosts, blogPostSlugs, type BlogPostDoc, type TagRef } from '../../projections/blog/posts.js';
export { blogSettings, SETTINGS_ID, type BlogSettingsDoc } from '../../projections/blog/settings.js';
export {
  blogCategories,
  blogTags,
  blogTagSlugs,
  type BlogCategoryDoc,
  type BlogTagDoc,
} from '../../projections/blog/taxonomy.js';
