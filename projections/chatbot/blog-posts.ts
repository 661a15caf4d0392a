import { chatbotBlogPosts } from '../../contracts/chatbot/documents.js';
import { defineHandlerProjection, type Projected } from '../projection.js';

export const BLOG_POST_EVENTS = ['BlogPostCreated', 'BlogPostUpdated', 'BlogPostDeleted'] as const;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const ids = (value: unknown): number[] =>
  Array.isArray(value) ? value.filter((v): v is number => Number.isInteger(v)) : [];
const names = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/** A blog post's event as this module reads it: by name, every field checked (see above). */
interface BlogPostEventByName {
  type: (typeof BLOG_POST_EVENTS)[number];
  data: { id?: unknown; fields?: Record<string, unknown> } | null;
}

/**
 * One document per published post. Written as a handler, not an evolve: it replaces or deletes
 * the document whatever it held, so reading it first would only cost a read per post event.
 */
export const chatbotBlogPostsProjection = defineHandlerProjection({
  name: 'chatbot-blog-posts',
  handles: ['BlogPostCreated', 'BlogPostUpdated', 'BlogPostDeleted'],
  async handle(event: Projected<BlogPostEventByName>, documents) {
    const data = event.data;
    if (typeof data?.id !== 'number') return;
    const f = data.fields ?? {};
    // Only a published post (public now or scheduled) can be indexed. Every create and update
    // carries all the fields, so a post left unpublished needs no copy here until it is published.
    if (event.type === 'BlogPostDeleted' || f.status !== 'published') {
      if (event.type !== 'BlogPostCreated') await chatbotBlogPosts(documents).deleteOne({ _id: data.id });
      return;
    }
    await chatbotBlogPosts(documents).put({
      _id: data.id,
      id: data.id,
      title: text(f.title),
      slug: text(f.slug),
      excerpt: text(f.excerpt),
      content: text(f.content),
      status: text(f.status),
      published_at: typeof f.published_at === 'string' ? f.published_at : null,
      tags: names(f.tags),
      site_ids: ids(f.site_ids),
    });
  },
});
