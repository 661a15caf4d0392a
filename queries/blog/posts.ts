import type { BlogPostStatus } from '../../commands/blog/events.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { blogCategories, blogPostSlugs, blogPosts, type BlogPostDoc } from './documents.js';
import { postIndex, publishedBy } from './post-index.js';

export interface PostFilters {
  status?: BlogPostStatus;
  /** Omit posts whose published_at is after this time ('YYYY-MM-DD HH:MM:SS'). */
  notPublishedAfter?: string;
  siteId?: number;
  categoryId?: number;
  /** Takes precedence over categoryId; an unknown slug matches nothing. */
  categorySlug?: string;
  tagSlug?: string;
  authorId?: number;
  /** Case-insensitive substring of title, excerpt or content. */
  search?: string;
}

export interface PostPage {
  total: number;
  posts: BlogPostDoc[];
}

export function findPost(documents: DocumentStore, id: number): Promise<BlogPostDoc | null> {
  return blogPosts(documents).findOne({ _id: id });
}

function matcher(filters: PostFilters, categoryId: number | undefined): ((post: BlogPostDoc) => boolean) | null {
  const tests: ((post: BlogPostDoc) => boolean)[] = [];
  if (filters.status !== undefined) tests.push((p) => p.status === filters.status);
  if (filters.siteId !== undefined) tests.push((p) => p.site_ids.includes(filters.siteId as number));
  if (categoryId !== undefined) tests.push((p) => p.category_id === categoryId);
  if (filters.tagSlug !== undefined) tests.push((p) => p.tag_slugs.includes(filters.tagSlug as string));
  if (filters.authorId !== undefined) tests.push((p) => p.author_id === filters.authorId);
  if (filters.search !== undefined && filters.search !== '') {
    const needle = filters.search.toLowerCase();
    tests.push((p) => p.title.toLowerCase().includes(needle) || p.excerpt.toLowerCase().includes(needle) || p.content.toLowerCase().includes(needle));
  }
  if (filters.notPublishedAfter !== undefined) {
    const now = filters.notPublishedAfter;
    tests.push((p) => p.published_at === null || p.published_at <= now);
  }
  if (tests.length === 0) return null;
  return (post) => tests.every((test) => test(post));
}

/** The id of the post with this slug, or null. */
export async function postIdBySlug(documents: DocumentStore, slug: string): Promise<number | null> {
  return (await blogPostSlugs(documents).findOne({ _id: slug }))?.id ?? null;
}

/** Posts newest first (published_at, else created_at, then id, descending), one page of them. */
export async function listPosts(documents: DocumentStore, filters: PostFilters, skip: number, limit: number): Promise<PostPage> {
  let categoryId = filters.categoryId;
  if (filters.categorySlug !== undefined) {
    const category = await blogCategories(documents).findOne({ slug: filters.categorySlug });
    if (!category) return { total: 0, posts: [] };
    categoryId = category.id;
  }
  const index = await postIndex(documents);
  let candidates = index.all;
  let rest: PostFilters = filters;
  if (filters.status === 'published') {
    candidates = index.published;
    rest = { ...rest, status: undefined };
    if (filters.notPublishedAfter !== undefined) {
      candidates = publishedBy(candidates, filters.notPublishedAfter);
      rest = { ...rest, notPublishedAfter: undefined };
    }
  }
  const match = matcher(rest, categoryId);
  const selected = !match ? candidates : filters.search ? await filterTakingTurns(candidates, match) : candidates.filter(match);
  return { total: selected.length, posts: selected.slice(skip, skip + limit) };
}

/** Posts a text search looks at between turns given to other requests. */
const SEARCH_SLICE = 2_000;

/**
 * A text search reads post bodies, about a microsecond each: over a large blog it gives other
 * requests a turn of the event loop after every slice, rather than holding them all up. The
 * index is a snapshot, so the slices see one list whatever is written meanwhile.
 */
async function filterTakingTurns(candidates: readonly BlogPostDoc[], match: (post: BlogPostDoc) => boolean): Promise<BlogPostDoc[]> {
  const selected: BlogPostDoc[] = [];
  for (let start = 0; start < candidates.length; start += SEARCH_SLICE) {
    if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const end = Math.min(candidates.length, start + SEARCH_SLICE);
    for (let i = start; i < end; i++) if (match(candidates[i])) selected.push(candidates[i]);
  }
  return selected;
}
