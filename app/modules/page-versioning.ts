import type { AppModule } from '../kernel.js';
import { pageVersionsProjection } from '../../projections/page-versioning/versions.js';
import { pageVersioningRoutes } from '../../routes/page-versioning/index.js';

/** Page version history: versions of site pages, one version read by replay, revert, diff. */
export const pageVersioningModule: AppModule = {
  name: 'page-versioning',
  projections: [pageVersionsProjection],
  create: () => ({ routes: pageVersioningRoutes }),
};
