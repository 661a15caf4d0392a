import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { withDefault } from '../../infra/schema/record-fields.js';

/**
 * The blog's records, each field declared once: what the events carry (events.ts), what the
 * read models keep (projections/blog/), and, derived from these, the write bodies
 * (schemas.ts), the fixture's sections (importer.ts) and a new record's defaults (`default`,
 * filled in by fieldsOf, infra/schema/record-fields.ts). A field added here reaches all of
 * them; the representations (routes/blog/representations.ts) say what a response shows.
 * The annotations (descriptions, limits) are those the API documents for the write bodies.
 */
/** The limits the rules (rules.ts) hold every value to; the write bodies document some of them. */
export const LIMITS = { title: 1000, slug: 190, name: 255, email: 254, text: 1_000_000, url: 2048, tags: 100 } as const;

const Id = Type.Integer({ minimum: 1 });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A union of the statuses: its refusal names them ("status must be one of draft, pending, published."). */
const PostStatus = Type.Union([Type.Literal('draft'), Type.Literal('pending'), Type.Literal('published')], {
  description: 'draft (default), pending or published',
});
export type BlogPostStatus = Static<typeof PostStatus>;
export const POST_STATUSES: readonly BlogPostStatus[] = PostStatus.anyOf.map((status) => status.const);

export const BlogPostFields = Type.Object({
  title: Type.String(),
  slug: Type.String({
    maxLength: LIMITS.slug,
    description: 'Generated from the title when omitted (kept unique); a given slug must be free',
  }),
  excerpt: withDefault(Type.String({ description: 'HTML' }), ''),
  content: withDefault(Type.String({ description: 'HTML' }), ''),
  status: withDefault(PostStatus, 'draft'),
  /** The user who wrote it: the caller of a create, never a body's field. */
  author_id: withDefault(Nullable(Id), null),
  category_id: withDefault(Nullable(Id), null),
  featured_image_asset_id: withDefault(Nullable(Id), null),
  featured_image_url: withDefault(
    Nullable(Type.String({ maxLength: LIMITS.url, description: 'Not derived from the asset id' })),
    null,
  ),
  /** 'YYYY-MM-DD HH:MM:SS' in UTC as stored (a body may give ISO 8601). */
  published_at: withDefault(
    Nullable(
      Type.String({
        description: 'YYYY-MM-DD HH:MM:SS (UTC; ISO 8601 accepted); with status published and no value, now',
      }),
    ),
    null,
  ),
  /** Tag names. */
  tags: withDefault(
    Type.Array(Type.String(), {
      description: 'Tag names; missing tags are created; on update replaces the whole list',
    }),
    [],
  ),
  site_ids: withDefault(
    Type.Array(Id, { description: 'Sites the post is visible on; on update replaces the assignments' }),
    [],
  ),
});
export type BlogPostFields = Static<typeof BlogPostFields>;

export const BlogCategoryFields = Type.Object({
  name: Type.String(),
  slug: Type.String({
    maxLength: LIMITS.slug,
    description: 'Generated from the name when omitted (kept unique); a given slug must be free',
  }),
  description: withDefault(Type.String(), ''),
});
export type BlogCategoryFields = Static<typeof BlogCategoryFields>;

/** A tag is only ever created, through a post's `tags`. */
export const BlogTagFields = Type.Object({ name: Type.String(), slug: Type.String() });
export type BlogTagFields = Static<typeof BlogTagFields>;

const CommentStatus = Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('spam')]);
export type BlogCommentStatus = Static<typeof CommentStatus>;
export const COMMENT_STATUSES: readonly BlogCommentStatus[] = CommentStatus.anyOf.map((status) => status.const);

export const BlogCommentFields = Type.Object({
  post_id: Id,
  author_name: Type.String(),
  author_email: Type.String(),
  /** Stored as given; routes never hand it out as active HTML. */
  body: Type.String({ description: 'Stored as written; answered as text (&, < and > escaped)' }),
  /** A visitor's comment is pending until moderated; the fixture may give another. */
  status: withDefault(CommentStatus, 'pending'),
});
export type BlogCommentFields = Static<typeof BlogCommentFields>;

/** The blog's settings: one record, written whole. */
export const BlogSettingsFields = Type.Object({
  /** Whether the legacy endpoint takes comments. */
  comments_enabled: withDefault(Type.Boolean(), true),
});
export type BlogSettings = Static<typeof BlogSettingsFields>;
