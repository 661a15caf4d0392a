import type { Projection } from '../projection.js';
import { assetsProjection } from './assets.js';
import { assetFoldersProjection } from './folders.js';
import { assetUsageProjection } from './usage.js';

export const assetProjections: Projection[] = [assetFoldersProjection, assetsProjection, assetUsageProjection];
