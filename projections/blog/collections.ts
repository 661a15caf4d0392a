/** The blog's read-model collections by name (a backup or a rebuild names them too). */
export const BLOG_COLLECTIONS = {
  posts: 'blog_posts',
  categories: 'blog_categories',
  tags: 'blog_tags',
  comments: 'blog_comments',
  settings: 'blog_settings',
  postSlugs: 'blog_post_slugs',
  tagSlugs: 'blog_tag_slugs',
} as const;

/** Slug to id, so slug lookups are a key read rather than a scan (posts and tags). */
export interface SlugDoc {
  _id: string;
  id: number;
  [key: string]: unknown;
}
