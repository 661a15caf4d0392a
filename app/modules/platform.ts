import type { AppModule } from '../kernel.js';
import { platformProjections } from '../../projections/platform/resources.js';
import { platformRoutes } from '../../routes/platform/index.js';
import { platformImporter } from '../../commands/platform/importer.js';

/** Host platform resources: sites, item sets, items, media, site pages. */
export const platformModule: AppModule = {
  name: 'platform',
  projections: platformProjections,
  create: () => ({ routes: platformRoutes }),
  importer: platformImporter,
};
