import type { Projection } from '../projection.js';
import { blogCommentsProjection } from './comments.js';
import { blogPostsProjection } from './posts.js';
import { blogSettingsProjection } from './settings.js';
import { blogCategoriesProjection, blogTagsProjection } from './taxonomy.js';

export const blogProjections: Projection[] = [
  blogTagsProjection,
  blogCategoriesProjection,
  blogPostsProjection,
  blogCommentsProjection,
  blogSettingsProjection,
];
