import type { DocumentStore } from '../../infra/document-store/port.js';
import { blogMeta, blogPosts, POSTS_VERSION_ID, type BlogPostDoc } from './documents.js';

/** Every post newest first, and the published ones alone (also newest first by publish time). */
export interface PostIndex {
  version: number;
  all: readonly BlogPostDoc[];
  published: readonly BlogPostDoc[];
}

function newestFirst(a: BlogPostDoc, b: BlogPostDoc): number {
  if (a.sort_time !== b.sort_time) return a.sort_time < b.sort_time ? 1 : -1;
  return b.id - a.id;
}

const indexes = new WeakMap<DocumentStore, PostIndex>();

/**
 * The posts in list order, rebuilt only when the posts projection has moved on (its version
 * document changes with every post event), so a list request neither scans nor sorts. The
 * version is read before the posts: a change in between only makes the next request rebuild.
 */
export async function postIndex(documents: DocumentStore): Promise<PostIndex> {
  const version = (await blogMeta(documents).findOne({ _id: POSTS_VERSION_ID }))?.version ?? 0;
  const cached = indexes.get(documents);
  if (cached && cached.version === version) return cached;
  // Sorted here rather than by the store: a plain string compare, and no server-side sort
  // memory limit on a large blog (MongoDB refuses big in-memory sorts without an index).
  const all = (await blogPosts(documents).find({})).sort(newestFirst);
  const index: PostIndex = { version, all, published: all.filter((p) => p.status === 'published') };
  indexes.set(documents, index);
  return index;
}

/**
 * The published posts whose publish time is not after `now`. Published posts are sorted by
 * publish time, newest first, so the scheduled ones are a prefix found by binary search.
 */
export function publishedBy(published: readonly BlogPostDoc[], now: string): readonly BlogPostDoc[] {
  let low = 0;
  let high = published.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((published[mid].published_at ?? '') > now) low = mid + 1;
    else high = mid;
  }
  return low === 0 ? published : published.slice(low);
}
