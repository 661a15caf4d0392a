import type { AppModule } from '../kernel.js';
import { blogImporter } from '../../commands/blog/importer.js';
import { blogProjections } from '../../projections/blog/index.js';
import { blogRoutes } from '../../routes/blog/index.js';

/** Blog posts, categories, tags and comments: native resources and the legacy /api/blog/ endpoints. */
export const blogModule: AppModule = {
  name: 'blog',
  projections: blogProjections,
  create: () => ({ routes: blogRoutes }),
  importer: blogImporter,
};
