import type { AppModule } from '../kernel.js';
import { directoryImporter } from '../../commands/directory/importer.js';
import { directoryProjections } from '../../projections/directory/index.js';
import { directoryRoutes } from '../../routes/directory/index.js';

/** The library database directory: its API, tracked links, details pages, admin endpoints and widget. */
export const directoryModule: AppModule = {
  name: 'directory',
  projections: directoryProjections,
  create: () => ({ routes: directoryRoutes }),
  importer: directoryImporter,
};
