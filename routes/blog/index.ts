import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../app/runtime.js';
import { legacyBlogRoutes } from './legacy.js';
import { nativeCategoryRoutes } from './native-categories.js';
import { nativeCommentRoutes } from './native-comments.js';
import { nativePostRoutes } from './native-posts.js';
import { nativeTagRoutes } from './native-tags.js';

/** The blog's native resources under /api/ and its legacy endpoints under /api/blog/. */
export async function blogRoutes(app: FastifyInstance, runtime: Runtime): Promise<void> {
  await nativePostRoutes(app, runtime);
  await nativeCategoryRoutes(app, runtime);
  await nativeTagRoutes(app, runtime);
  await nativeCommentRoutes(app, runtime);
  await legacyBlogRoutes(app, runtime);
}
