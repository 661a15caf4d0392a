import type { RoutesPlugin } from '../http/routes-plugin.js';
import { legacyBlogRoutes } from './legacy.js';
import { nativeCategoryRoutes } from './native-categories.js';
import { nativeCommentRoutes } from './native-comments.js';
import { nativePostRoutes } from './native-posts.js';
import { nativeTagRoutes } from './native-tags.js';

/** The blog's native resources under /api/ and its legacy endpoints under /api/blog/. */
export const blogRoutes: RoutesPlugin = async (app, { runtime }) => {
  await app.register(nativePostRoutes, { runtime, prefix: '/api/blog_posts' });
  await app.register(nativeCategoryRoutes, { runtime, prefix: '/api/blog_categories' });
  await app.register(nativeTagRoutes, { runtime, prefix: '/api/blog_tags' });
  await app.register(nativeCommentRoutes, { runtime, prefix: '/api/blog_comments' });
  await app.register(legacyBlogRoutes, { runtime, prefix: '/api/blog' });
};
