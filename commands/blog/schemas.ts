import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * The blog's write bodies: the routes validate them (routes/blog/), the handlers take their
 * types (commands/blog/*-handlers.ts), so a field is declared once. The schema checks shape;
 * the rules (rules.ts, run by the deciders) check what a value means.
 */
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A union of the statuses: its refusal names them ("status must be one of draft, pending, published."). */
const PostStatus = Type.Union([Type.Literal('draft'), Type.Literal('pending'), Type.Literal('published')], {
  description: 'draft (default), pending or published',
});

const postBodyProperties = {
  slug: Type.Optional(
    Type.String({
      maxLength: 190,
      description: 'Generated from the title when omitted (kept unique); a given slug must be free',
    }),
  ),
  excerpt: Type.Optional(Type.String({ description: 'HTML' })),
  content: Type.Optional(Type.String({ description: 'HTML' })),
  status: Type.Optional(PostStatus),
  category_id: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  featured_image_asset_id: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  featured_image_url: Type.Optional(
    Nullable(Type.String({ maxLength: 2048, description: 'Not derived from the asset id' })),
  ),
  published_at: Type.Optional(
    Nullable(
      Type.String({
        description: 'YYYY-MM-DD HH:MM:SS (UTC; ISO 8601 accepted); with status published and no value, now',
      }),
    ),
  ),
  tags: Type.Optional(
    Type.Array(Type.String(), {
      description: 'Tag names; missing tags are created; on update replaces the whole list',
    }),
  ),
  site_ids: Type.Optional(
    Type.Array(Type.Integer({ minimum: 1 }), {
      description: 'Sites the post is visible on; on update replaces the assignments',
    }),
  ),
};

/** POST /api/blog_posts. */
export const CreatePostBody = Type.Object({ title: Type.String({ description: 'Required' }), ...postBodyProperties });
/** PUT and PATCH /api/blog_posts/{id}: absent keys stay as they are. */
export const UpdatePostBody = Type.Object({ title: Type.Optional(Type.String()), ...postBodyProperties });
export type CreatePostInput = Static<typeof CreatePostBody>;
export type UpdatePostInput = Static<typeof UpdatePostBody>;

/** POST /api/blog/posts (legacy): no site assignments; tags may be one comma-separated string. */
export const LegacyCreatePostBody = Type.Object({
  title: Type.String(),
  content: Type.String({ description: 'HTML' }),
  slug: Type.Optional(Type.String({ maxLength: 190 })),
  excerpt: Type.Optional(Type.String()),
  status: Type.Optional(PostStatus),
  category_id: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  published_at: Type.Optional(Nullable(Type.String({ description: 'YYYY-MM-DD HH:MM:SS (UTC)' }))),
  featured_image_asset_id: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  featured_image_url: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
  // String first: with the app's array coercion an array branch would swallow a plain string.
  tags: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description: 'An array of names or one comma-separated string',
    }),
  ),
});
export type LegacyCreatePostInput = Static<typeof LegacyCreatePostBody>;

const categoryBodyProperties = {
  slug: Type.Optional(
    Type.String({
      maxLength: 190,
      description: 'Generated from the name when omitted (kept unique); a given slug must be free',
    }),
  ),
  description: Type.Optional(Type.String()),
};
/** POST /api/blog_categories. */
export const CreateCategoryBody = Type.Object({
  name: Type.String({ description: 'Required' }),
  ...categoryBodyProperties,
});
/** PUT and PATCH /api/blog_categories/{id}. */
export const UpdateCategoryBody = Type.Object({ name: Type.Optional(Type.String()), ...categoryBodyProperties });
export type CreateCategoryInput = Static<typeof CreateCategoryBody>;
export type UpdateCategoryInput = Static<typeof UpdateCategoryBody>;

/** POST /api/blog_comments. */
export const CreateCommentBody = Type.Object({
  post_id: Type.Integer({ minimum: 1 }),
  author_name: Type.String(),
  author_email: Type.String(),
  body: Type.String({ description: 'Stored as written; answered as text (&, < and > escaped)' }),
});
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
