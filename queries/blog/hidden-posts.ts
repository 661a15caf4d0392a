import type { DocumentStore } from '../../infra/document-store/port.js';
import { blogPosts } from '../../contracts/blog/documents.js';

/**
 * Ids of the posts the public site does not show at `now`: not published, or published with a
 * publish time still to come. Comments of those posts are hidden below Editor like their posts.
 * Drafts and pending posts are found by the status index, scheduled ones by (status, published_at).
 */
export async function postsHiddenFromPublic(documents: DocumentStore, now: string): Promise<readonly number[]> {
  const posts = blogPosts(documents);
  const [unpublished, scheduled] = await Promise.all([
    posts.find({ status: { $in: ['draft', 'pending'] } }),
    posts.find({ status: 'published', published_at: { $gt: now } }),
  ]);
  return [...unpublished, ...scheduled].map((post) => post.id);
}
