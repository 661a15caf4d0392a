import type { AppModule } from '../kernel.js';
import { usersProjection } from '../../projections/users/users.js';
import { usersImporter } from '../../commands/users/importer.js';

/** Users, API keys and sessions: what every other module authenticates against. */
export const usersModule: AppModule = {
  name: 'users',
  projections: [usersProjection],
  importer: usersImporter,
};
