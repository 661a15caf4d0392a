import type { DocumentStore } from '../../infra/document-store/port.js';
import type { BlogPostDoc } from '../../contracts/blog/documents.js';
import { postContexts, representPostIn, type BlogPost, type PostContext } from './representations.js';

/** The route's compiled serializer for one BlogPostSchema object (fast-json-stringify): it takes what representPostIn builds. */
export type PostSerializer = (post: BlogPost) => string;

interface CachedJson {
  baseUrl: string;
  authorName: string;
  categoryName: string | null;
  categorySlug: string | null;
  json: string;
}

/**
 * Serialised posts by read-model document. The embedded store replaces a post's document on
 * every change and never edits one in place, so a document seen again is the same post; the
 * author's name and the category can change without the post, so they are compared each time.
 * Adapters that hand out new documents per read (MongoDB) simply miss the cache.
 */
const cache = new WeakMap<BlogPostDoc, CachedJson>();

function fresh(entry: CachedJson | undefined, baseUrl: string, context: PostContext): entry is CachedJson {
  return (
    entry !== undefined &&
    entry.baseUrl === baseUrl &&
    entry.authorName === context.authorName &&
    entry.categoryName === (context.category?.name ?? null) &&
    entry.categorySlug === (context.category?.slug ?? null)
  );
}

function postJson(baseUrl: string, post: BlogPostDoc, context: PostContext, serialize: PostSerializer): string {
  const entry = cache.get(post);
  if (fresh(entry, baseUrl, context)) return entry.json;
  const json = serialize(representPostIn(baseUrl, post, context));
  cache.set(post, {
    baseUrl,
    authorName: context.authorName,
    categoryName: context.category?.name ?? null,
    categorySlug: context.category?.slug ?? null,
    json,
  });
  return json;
}

interface CachedPage {
  parts: string[];
  body: Buffer;
}

/** Recent pages by the ids they list; an entry is used only while every part is still current. */
const pages = new Map<string, CachedPage>();
const PAGE_CACHE_LIMIT = 256;

function samePartsAs(page: CachedPage | undefined, parts: string[]): page is CachedPage {
  if (!page || page.parts.length !== parts.length) return false;
  for (let n = 0; n < parts.length; n++) if (page.parts[n] !== parts[n]) return false;
  return true;
}

/**
 * A page of posts as the JSON array the list route answers, each post serialised through its
 * schema once per version of the post: a public list is read far more often than written, and
 * building and serialising the representations was most of a list request's cost. A page whose
 * posts all serialise to the strings they did last time is answered with the same bytes.
 */
export async function postListJson(
  documents: DocumentStore,
  baseUrl: string,
  posts: readonly BlogPostDoc[],
  serialize: PostSerializer,
): Promise<Buffer> {
  const contexts = await postContexts(documents, posts);
  const parts = posts.map((post, n) => postJson(baseUrl, post, contexts[n], serialize));
  const key = posts.map((post) => post.id).join(',');
  const cached = pages.get(key);
  if (samePartsAs(cached, parts)) return cached.body;
  const body = Buffer.from(`[${parts.join(',')}]`);
  if (pages.size >= PAGE_CACHE_LIMIT) pages.clear();
  pages.set(key, { parts, body });
  return body;
}
