import type { Projection } from '../projection.js';
import { clickCountsProjection } from './clicks.js';
import { databasesProjection } from './databases.js';
import { libraryProjection } from './library.js';
import { listsProjection } from './lists.js';
import { subjectsProjection, typesProjection } from './terms.js';
import { tokensProjection } from './tokens.js';

export const directoryProjections: Projection[] = [
  libraryProjection,
  tokensProjection,
  subjectsProjection,
  typesProjection,
  databasesProjection,
  listsProjection,
  clickCountsProjection,
];
