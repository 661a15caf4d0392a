import type { BlogCommentStatus } from '../../contracts/blog/events.js';
import type { DocumentStore, Filter } from '../../infra/document-store/port.js';
import { blogComments, type BlogCommentDoc } from '../../contracts/blog/documents.js';

export interface CommentFilters {
  status?: BlogCommentStatus;
  postId?: number;
  /** Posts whose comments are left out (those the caller may not see). */
  exceptPostIds?: readonly number[];
}

export function findComment(documents: DocumentStore, id: number): Promise<BlogCommentDoc | null> {
  return blogComments(documents).findOne({ _id: id });
}

export function commentsOfPost(documents: DocumentStore, postId: number): Promise<BlogCommentDoc[]> {
  return blogComments(documents).find({ post_id: postId });
}

/** Comments newest first (posted time, then id), one page of them, with the total. */
export async function listComments(
  documents: DocumentStore,
  filters: CommentFilters,
  { skip, limit }: { skip: number; limit: number },
): Promise<{ total: number; comments: BlogCommentDoc[] }> {
  const filter: Filter = {};
  if (filters.status !== undefined) filter.status = filters.status;
  if (filters.postId !== undefined) filter.post_id = filters.postId;
  if (filters.exceptPostIds !== undefined && filters.exceptPostIds.length > 0) {
    if (filters.postId !== undefined && filters.exceptPostIds.includes(filters.postId))
      return { total: 0, comments: [] };
    if (filters.postId === undefined) filter.post_id = { $nin: filters.exceptPostIds };
  }
  const comments = blogComments(documents);
  const [total, page] = await Promise.all([
    comments.count(filter),
    comments.find(filter, { sort: { posted_at: -1, id: -1 }, skip, limit }),
  ]);
  return { total, comments: page };
}
