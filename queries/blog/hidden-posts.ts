import type { DocumentStore } from '../../infra/document-store/port.js';
import { postIndex, publishedBy, type PostIndex } from './post-index.js';

const unpublishedByIndex = new WeakMap<PostIndex, readonly number[]>();

/**
 * Ids of the posts the public site does not show at `now`: not published, or published with a
 * publish time still to come. Comments of those posts are hidden below Editor like their posts.
 * The unpublished ones are found once per version of the post index; the scheduled ones are the
 * prefix of the published list (newest publish time first) that is still in the future.
 */
export async function postsHiddenFromPublic(documents: DocumentStore, now: string): Promise<readonly number[]> {
  const index = await postIndex(documents);
  let unpublished = unpublishedByIndex.get(index);
  if (unpublished === undefined) {
    unpublished = index.all.filter((post) => post.status !== 'published').map((post) => post.id);
    unpublishedByIndex.set(index, unpublished);
  }
  const scheduledCount = index.published.length - publishedBy(index.published, now).length;
  if (scheduledCount === 0) return unpublished;
  return [...unpublished, ...index.published.slice(0, scheduledCount).map((post) => post.id)];
}
