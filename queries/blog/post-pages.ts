import type { DocumentStore } from '../../infra/document-store/port.js';
import { blogMeta, POSTS_VERSION_ID, type BlogPostDoc } from './documents.js';

export interface PostPage {
  total: number;
  posts: BlogPostDoc[];
}

/** Pages answered since the posts last changed, by what was asked. */
interface Pages {
  version: number;
  answers: Map<string, PostPage>;
}

const PAGES_LIMIT = 256;
const byStore = new WeakMap<DocumentStore, Pages>();

/**
 * A page of a post list from the answers given since the posts projection last moved its
 * version (it does with every post event), else from `read`. The read benchmark showed the
 * store's own queries (three per list: the page and two counts) at a third of the throughput
 * the list had with its pages remembered. The version is read before the page: a change in
 * between only makes the next request read again.
 */
export async function rememberedPage(documents: DocumentStore, key: string, read: () => Promise<PostPage>): Promise<PostPage> {
  const version = (await blogMeta(documents).findOne({ _id: POSTS_VERSION_ID }))?.version ?? 0;
  let pages = byStore.get(documents);
  if (!pages || pages.version !== version) {
    pages = { version, answers: new Map() };
    byStore.set(documents, pages);
  }
  const known = pages.answers.get(key);
  if (known) return known;
  const page = await read();
  if (pages.answers.size >= PAGES_LIMIT) pages.answers.clear();
  pages.answers.set(key, page);
  return page;
}
