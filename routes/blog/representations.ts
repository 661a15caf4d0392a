import { Type, type Static } from '@sinclair/typebox';
import { COMMENT_STATUSES, POST_STATUSES } from '../../contracts/blog/events.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import type { BlogCategoryDoc, BlogCommentDoc, BlogPostDoc, BlogTagDoc } from '../../contracts/blog/documents.js';
import { findCategory } from '../../queries/blog/taxonomy.js';
import { userName } from '../../queries/users.js';
import { jsonLd, type JsonLdBody } from '../json-ld.js';
import { commentBodyAsText } from './comment-body.js';
import { sqlTimestamp } from '../../infra/clock/sql-timestamp.js';

/**
 * Nullable in the OpenAPI 3.0 way. fast-json-stringify serialises `nullable` directly, where an
 * anyOf with null would be checked value by value on every response.
 */
const NullableInteger = (options: { description?: string } = {}) =>
  Type.Unsafe<number | null>({ type: 'integer', nullable: true, ...options });
const NullableString = (options: { description?: string } = {}) =>
  Type.Unsafe<string | null>({ type: 'string', nullable: true, ...options });

const LdHeader = {
  '@context': Type.String(),
  '@id': Type.String(),
  '@type': Type.String(),
  'o:id': Type.Integer(),
};

const TagRefSchema = Type.Object({ id: Type.Integer(), name: Type.String(), slug: Type.String() });

export const BlogPostSchema = Type.Object(
  {
    ...LdHeader,
    'o:title': Type.String(),
    'o:slug': Type.String(),
    'o:excerpt': Type.String({ description: 'HTML, as written' }),
    'o:content': Type.String({ description: 'HTML, as written' }),
    'o:status': Type.String({ enum: [...POST_STATUSES] }),
    'o:author_id': NullableInteger(),
    'o:author_name': Type.String(),
    'o:category_id': NullableInteger(),
    'o:category_name': NullableString(),
    'o:category_slug': NullableString(),
    'o:featured_image_asset_id': NullableInteger(),
    'o:featured_image_url': NullableString(),
    'o:published_at': NullableString({ description: 'YYYY-MM-DD HH:MM:SS (UTC); null for a post never published' }),
    'o:created_at': Type.String({ description: 'YYYY-MM-DD HH:MM:SS (UTC)' }),
    'o:updated_at': Type.String({ description: 'YYYY-MM-DD HH:MM:SS (UTC)' }),
    'o:tags': Type.Array(TagRefSchema),
    'o:site_ids': Type.Array(Type.Integer(), { description: 'Sites the post is assigned to' }),
  },
  { title: 'BlogPost', description: 'A blog post (o:BlogPost)' },
);
/** A post as the native routes answer it: representPostIn builds exactly this (tsc says so). */
export type BlogPost = Static<typeof BlogPostSchema>;

export const BlogCategorySchema = Type.Object(
  {
    ...LdHeader,
    'o:name': Type.String(),
    'o:slug': Type.String(),
    'o:description': Type.String(),
    'o:created_at': Type.String(),
    'o:updated_at': Type.String(),
  },
  { title: 'BlogCategory', description: 'A blog category (o:BlogCategory)' },
);
export type BlogCategory = Static<typeof BlogCategorySchema>;

export const BlogTagSchema = Type.Object(
  { ...LdHeader, 'o:name': Type.String(), 'o:slug': Type.String() },
  { title: 'BlogTag', description: 'A blog tag (o:BlogTag)' },
);
export type BlogTag = Static<typeof BlogTagSchema>;

export const BlogCommentSchema = Type.Object(
  {
    ...LdHeader,
    'o:post_id': Type.Integer(),
    'o:author_name': Type.String(),
    'o:author_email': Type.Optional(Type.String({ description: 'Only for Editor and above' })),
    'o:body': Type.String({
      description:
        'The comment as text: stored as written, answered with &, < and > escaped, so it never reaches a page as active HTML.',
    }),
    'o:status': Type.String({ enum: [...COMMENT_STATUSES] }),
    'o:posted_at': Type.String({ description: 'YYYY-MM-DD HH:MM:SS (UTC)' }),
  },
  { title: 'BlogComment', description: 'A blog comment (o:BlogComment)' },
);
export type BlogComment = Static<typeof BlogCommentSchema>;

export const LegacyPostSchema = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    slug: Type.String(),
    excerpt: Type.String(),
    content: Type.String(),
    status: Type.String(),
    author_id: NullableInteger(),
    category_id: NullableInteger(),
    tags: Type.Array(Type.String()),
    published_at: NullableString(),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  { title: 'LegacyBlogPost', description: 'A blog post in the legacy plain JSON shape' },
);
export type LegacyPost = Static<typeof LegacyPostSchema>;

export const LegacyListSchema = Type.Object({
  data: Type.Array(LegacyPostSchema),
  total: Type.Integer(),
  page: Type.Integer(),
  per_page: Type.Integer(),
  total_pages: Type.Integer(),
});

/** What a post's representation takes from outside the post itself. */
export interface PostContext {
  authorName: string;
  category: BlogCategoryDoc | null;
}

/** Author names and categories of a page of posts, each looked up once. */
/** Authors' names and categories looked up since the store last changed. */
interface Lookups {
  mark: number | undefined;
  authors: Map<number, string>;
  categories: Map<number, BlogCategoryDoc | null>;
}

const lookupsByStore = new WeakMap<DocumentStore, Lookups>();

/**
 * The look-ups of one page, kept while the store's change mark stays (DocumentStore.changeMark:
 * no write here, no commit by another process): every list page names the same few authors and
 * categories, and looking them up was a third of an uncached list's time (docs/perf-history.md,
 * issue 53). A store without a change mark keeps nothing.
 */
function lookupsOf(documents: DocumentStore): Lookups {
  const mark = documents.changeMark?.();
  const kept = lookupsByStore.get(documents);
  if (mark !== undefined && kept?.mark === mark) return kept;
  const fresh: Lookups = { mark, authors: new Map(), categories: new Map() };
  if (mark !== undefined) lookupsByStore.set(documents, fresh);
  return fresh;
}

export async function postContexts(documents: DocumentStore, posts: readonly BlogPostDoc[]): Promise<PostContext[]> {
  const { authors, categories } = lookupsOf(documents);
  for (const post of posts) {
    if (post.author_id !== null && !authors.has(post.author_id))
      authors.set(post.author_id, await userName(documents, post.author_id));
    if (post.category_id !== null && !categories.has(post.category_id))
      categories.set(post.category_id, await findCategory(documents, post.category_id));
  }
  return posts.map((post) => ({
    authorName: post.author_id === null ? '' : (authors.get(post.author_id) ?? ''),
    category: post.category_id === null ? null : (categories.get(post.category_id) ?? null),
  }));
}

export function representPostIn(baseUrl: string, post: BlogPostDoc, context: PostContext): BlogPost {
  const category = context.category;
  return jsonLd<JsonLdBody<BlogPost>>(baseUrl, 'o:BlogPost', 'blog_posts', post.id, {
    'o:title': post.title,
    'o:slug': post.slug,
    'o:excerpt': post.excerpt,
    'o:content': post.content,
    'o:status': post.status,
    'o:author_id': post.author_id,
    'o:author_name': context.authorName,
    'o:category_id': category ? post.category_id : null,
    'o:category_name': category?.name ?? null,
    'o:category_slug': category?.slug ?? null,
    'o:featured_image_asset_id': post.featured_image_asset_id,
    'o:featured_image_url': post.featured_image_url,
    'o:published_at': post.published_at,
    'o:created_at': sqlTimestamp(post.created_at),
    'o:updated_at': sqlTimestamp(post.updated_at),
    'o:tags': post.tag_refs,
    'o:site_ids': post.site_ids,
  });
}

export async function representPosts(
  documents: DocumentStore,
  baseUrl: string,
  posts: BlogPostDoc[],
): Promise<BlogPost[]> {
  const contexts = await postContexts(documents, posts);
  return posts.map((post, n) => representPostIn(baseUrl, post, contexts[n]));
}

export async function representPost(documents: DocumentStore, baseUrl: string, post: BlogPostDoc): Promise<BlogPost> {
  return (await representPosts(documents, baseUrl, [post]))[0];
}

export function representCategory(baseUrl: string, category: BlogCategoryDoc): BlogCategory {
  return jsonLd<JsonLdBody<BlogCategory>>(baseUrl, 'o:BlogCategory', 'blog_categories', category.id, {
    'o:name': category.name,
    'o:slug': category.slug,
    'o:description': category.description,
    'o:created_at': sqlTimestamp(category.created_at),
    'o:updated_at': sqlTimestamp(category.updated_at),
  });
}

export function representTag(baseUrl: string, tag: BlogTagDoc): BlogTag {
  return jsonLd<JsonLdBody<BlogTag>>(baseUrl, 'o:BlogTag', 'blog_tags', tag.id, {
    'o:name': tag.name,
    'o:slug': tag.slug,
  });
}

/** `o:author_email` only for Editor and above. */
export function representComment(baseUrl: string, comment: BlogCommentDoc, withEmail: boolean): BlogComment {
  return jsonLd<JsonLdBody<BlogComment>>(baseUrl, 'o:BlogComment', 'blog_comments', comment.id, {
    'o:post_id': comment.post_id,
    'o:author_name': comment.author_name,
    'o:body': commentBodyAsText(comment.body),
    'o:status': comment.status,
    'o:posted_at': sqlTimestamp(comment.posted_at),
    // Last: keys after a spread take V8's slow path (see jsonLd); the schema fixes the output order.
    ...(withEmail ? { 'o:author_email': comment.author_email } : {}),
  });
}

export function representLegacyPost(post: BlogPostDoc): LegacyPost {
  return {
    id: post.id,
    title: post.title,
    slug: post.slug,
    excerpt: post.excerpt,
    content: post.content,
    status: post.status,
    author_id: post.author_id,
    category_id: post.category_id,
    tags: post.tags,
    published_at: post.published_at,
    created_at: sqlTimestamp(post.created_at),
    updated_at: sqlTimestamp(post.updated_at),
  };
}
