import { BLOG_COMMENT_VERSIONED, type BlogCommentEvent, type BlogPostDeleted } from '../../commands/blog/events.js';
import { blogComments, type BlogCommentDoc } from '../../queries/blog/documents.js';
import { defineProjection } from '../projection.js';

/**
 * Comments. A deleted post's comments are deleted by their own events; dropping them here on
 * BlogPostDeleted as well keeps the read model right even if those were never appended.
 */
export const blogCommentsProjection = defineProjection({
  name: 'blog-comments',
  handles: [...BLOG_COMMENT_VERSIONED, 'BlogPostDeleted'],
  async apply(stored, documents) {
    const event = { type: stored.type, data: stored.data } as BlogCommentEvent | BlogPostDeleted;
    const comments = blogComments(documents);
    switch (event.type) {
      case 'BlogCommentPosted':
        await comments.put(
          Object.assign({} as BlogCommentDoc, event.data.fields, { _id: event.data.id, id: event.data.id, posted_at: stored.metadata.at, updated_at: stored.metadata.at, version: stored.streamVersion }),
        );
        return;
      case 'BlogCommentModerated':
        await comments.updateOne({ _id: event.data.id }, { $set: { status: event.data.status, updated_at: stored.metadata.at, version: stored.streamVersion } });
        return;
      case 'BlogCommentDeleted':
        await comments.deleteOne({ _id: event.data.id });
        return;
      case 'BlogPostDeleted':
        await comments.deleteMany({ post_id: event.data.id });
        return;
    }
  },
});
