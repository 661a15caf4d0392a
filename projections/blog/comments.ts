import type { BlogCommentEvent, BlogPostDeleted } from '../../contracts/blog/events.js';
import { copyWith } from '../../infra/objects/copy-with.js';
import { defineHandlerProjection, type Projected } from '../projection.js';
import { blogComments } from '../../contracts/blog/documents.js';

/**
 * Comments. A deleted post's comments are deleted by their own events; dropping them here on
 * BlogPostDeleted as well keeps the read model right even if those were never appended (so a
 * post's event writes many comments: the escape hatch).
 */
export const blogCommentsProjection = defineHandlerProjection({
  name: 'blog-comments',
  handles: ['BlogCommentPosted', 'BlogCommentModerated', 'BlogCommentDeleted', 'BlogPostDeleted'],
  async handle(event: Projected<BlogCommentEvent | BlogPostDeleted>, documents) {
    const comments = blogComments(documents);
    const at = event.metadata.at;
    switch (event.type) {
      case 'BlogCommentPosted': {
        const { id, fields } = event.data;
        await comments.put(
          copyWith(fields, { _id: id, id, posted_at: at, updated_at: at, version: event.streamVersion }),
        );
        return;
      }
      case 'BlogCommentModerated':
        await comments.updateOne(
          { _id: event.data.id },
          { $set: { status: event.data.status, updated_at: at, version: event.streamVersion } },
        );
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
