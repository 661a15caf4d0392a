import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { optional, withoutDefault } from '../../infra/schema/record-fields.js';
import { BlogCategoryFields, BlogCommentFields, BlogPostFields, LIMITS } from '../../contracts/blog/fields.js';

/**
 * The blog's write bodies, derived from the records' fields (fields.ts): the routes validate
 * them (routes/blog/), the handlers take their types (commands/blog/*-handlers.ts), so a field
 * is declared once. The schema checks shape; the rules (rules.ts, run by the deciders) check
 * what a value means.
 */
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** The schema with a description of its own in front (the key order the document shows). */
const described = <T extends TSchema>(schema: T, description: string): T => ({ description, ...schema });

/** What a post's writes may set: every field but its author, who is the caller. */
const { title: postTitle, author_id: _author, ...postBodyProperties } = BlogPostFields.properties;

/** POST /api/blog_posts. */
export const CreatePostBody = Type.Object({
  title: described(postTitle, 'Required'),
  ...optional(postBodyProperties),
});
/** PUT and PATCH /api/blog_posts/{id}: absent keys stay as they are. */
export const UpdatePostBody = Type.Object({ title: Type.Optional(postTitle), ...optional(postBodyProperties) });
export type CreatePostInput = Static<typeof CreatePostBody>;
export type UpdatePostInput = Static<typeof UpdatePostBody>;

/**
 * POST /api/blog/posts (legacy): the legacy contract's own list and descriptions (no site
 * assignments; tags may be one comma-separated string). The route hands it on as a
 * CreatePostInput, so a type that strays from the post's fields does not compile.
 */
export const LegacyCreatePostBody = Type.Object({
  title: Type.String(),
  content: Type.String({ description: 'HTML' }),
  slug: Type.Optional(Type.String({ maxLength: LIMITS.slug })),
  excerpt: Type.Optional(Type.String()),
  status: Type.Optional(withoutDefault(BlogPostFields.properties.status)),
  category_id: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  published_at: Type.Optional(Nullable(Type.String({ description: 'YYYY-MM-DD HH:MM:SS (UTC)' }))),
  featured_image_asset_id: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  featured_image_url: Type.Optional(Nullable(Type.String({ maxLength: LIMITS.url }))),
  // String first: with the app's array coercion an array branch would swallow a plain string.
  tags: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description: 'An array of names or one comma-separated string',
    }),
  ),
});
export type LegacyCreatePostInput = Static<typeof LegacyCreatePostBody>;

const { name: categoryName, ...categoryBodyProperties } = BlogCategoryFields.properties;
/** POST /api/blog_categories. */
export const CreateCategoryBody = Type.Object({
  name: described(categoryName, 'Required'),
  ...optional(categoryBodyProperties),
});
/** PUT and PATCH /api/blog_categories/{id}. */
export const UpdateCategoryBody = Type.Object({
  name: Type.Optional(categoryName),
  ...optional(categoryBodyProperties),
});
export type CreateCategoryInput = Static<typeof CreateCategoryBody>;
export type UpdateCategoryInput = Static<typeof UpdateCategoryBody>;

/** POST /api/blog_comments: every field but the status, which a moderation sets. */
const { status: _commentStatus, ...commentBodyProperties } = BlogCommentFields.properties;
export const CreateCommentBody = Type.Object(commentBodyProperties);
export type CommentInput = Static<typeof CreateCommentBody>;

/** PUT and PATCH /api/blog_comments/{id}: the decider says which statuses a moderation may set. */
export const ModerateCommentBody = Type.Object(
  { status: Type.String({ description: 'approved or spam; any other value is refused with 422' }) },
  { description: 'Other fields are ignored.' },
);
export type ModerateCommentInput = Static<typeof ModerateCommentBody>;

/** POST /api/blog/posts/{id}/comments (legacy). Types only: which fields are missing is answered after the comments-enabled check. */
export const LegacyCommentBody = Type.Object({
  author_name: Type.Optional(Type.String()),
  author_email: Type.Optional(Type.String()),
  body: Type.Optional(Type.String({ description: 'Stored as written; never answered as active HTML' })),
});
export type LegacyCommentInput = Static<typeof LegacyCommentBody>;
