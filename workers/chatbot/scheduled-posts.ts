import type { DocumentStore } from '../../infra/document-store/port.js';
import { type ResourceRef, chatbotBlogPosts } from '../../contracts/chatbot/documents.js';
import { sqlDateTime } from './extract.js';

export const SCHEDULED_POST_CHECK_MS = 15_000;

/**
 * Published posts whose publication time fell in (since, now]: no event marks the moment a
 * scheduled post goes public, so the worker asks periodically and indexes these.
 */
export async function postsDueBetween(documents: DocumentStore, since: Date, now: Date): Promise<ResourceRef[]> {
  const due = await chatbotBlogPosts(documents).find({
    status: 'published',
    published_at: { $gt: sqlDateTime(since), $lte: sqlDateTime(now) },
  });
  return due.map((post) => ({ type: 'blog_post', id: post.id }));
}
