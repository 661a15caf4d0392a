import { ValidationError } from '../../infra/errors.js';
import { LIMITS } from '../../contracts/blog/fields.js';
import {
  COMMENT_STATUSES,
  POST_STATUSES,
  type BlogCategoryFields,
  type BlogCommentFields,
  type BlogPostFields,
} from '../../contracts/blog/events.js';

/**
 * The blog's own rules on a whole set of fields, shared by the deciders and by the handlers,
 * which check before they create tags or allocate ids so a refused command writes nothing.
 * Field names are those of the request bodies.
 */
const SLUG = /^[a-z0-9][a-z0-9_-]*$/i;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export { LIMITS } from '../../contracts/blog/fields.js';

function requireText(value: string, field: string, max: number): void {
  if (!value.trim()) throw ValidationError.field(field, 'Must not be empty.');
  if (value.length > max) throw ValidationError.field(field, `Must be at most ${max} characters.`);
}

function limit(value: string, field: string, max: number): void {
  if (value.length > max) throw ValidationError.field(field, `Must be at most ${max} characters.`);
}

export function checkSlug(value: string, field = 'slug'): void {
  requireText(value, field, LIMITS.slug);
  if (!SLUG.test(value)) throw ValidationError.field(field, 'Use letters, digits, "-" and "_" only.');
}

export function isTimestamp(value: string): boolean {
  return TIMESTAMP.test(value) && !Number.isNaN(Date.parse(`${value.replace(' ', 'T')}Z`));
}

function checkId(value: number | null, field: string): void {
  if (value !== null && (!Number.isInteger(value) || value < 1))
    throw ValidationError.field(field, 'Must be a positive integer.');
}

export function checkPostFields(f: BlogPostFields): void {
  requireText(f.title, 'title', LIMITS.title);
  checkSlug(f.slug);
  limit(f.excerpt, 'excerpt', LIMITS.text);
  limit(f.content, 'content', LIMITS.text);
  if (!POST_STATUSES.includes(f.status))
    throw ValidationError.field('status', 'status must be one of draft, pending, published.');
  checkId(f.author_id, 'author_id');
  checkId(f.category_id, 'category_id');
  checkId(f.featured_image_asset_id, 'featured_image_asset_id');
  if (f.featured_image_url !== null) limit(f.featured_image_url, 'featured_image_url', LIMITS.url);
  if (f.published_at !== null && !isTimestamp(f.published_at)) {
    throw ValidationError.field('published_at', 'Must be a date and time as YYYY-MM-DD HH:MM:SS.');
  }
  if (f.tags.length > LIMITS.tags) throw ValidationError.field('tags', `At most ${LIMITS.tags} tags.`);
  f.tags.forEach((tag) => requireText(tag, 'tags', LIMITS.name));
  f.site_ids.forEach((id) => checkId(id, 'site_ids'));
}

export function checkCategoryFields(f: BlogCategoryFields): void {
  requireText(f.name, 'name', LIMITS.name);
  checkSlug(f.slug);
  limit(f.description, 'description', LIMITS.text);
}

export function checkCommentFields(f: BlogCommentFields): void {
  checkId(f.post_id, 'post_id');
  requireText(f.author_name, 'author_name', LIMITS.name);
  requireText(f.author_email, 'author_email', LIMITS.email);
  if (!EMAIL.test(f.author_email)) throw ValidationError.field('author_email', 'Must be an email address.');
  requireText(f.body, 'body', LIMITS.text);
  if (!COMMENT_STATUSES.includes(f.status))
    throw ValidationError.field('status', 'status must be one of pending, approved, spam.');
}
