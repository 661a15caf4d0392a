import type { DocumentStore } from '../../infra/document-store/port.js';
import { resourceKey, type ResourceType } from '../../infra/vector-index/port.js';

/*
 * The chatbot's read models (projections/chatbot/): the published blog posts it indexes, and the
 * index work still owed, as its queries (queries/chatbot/) and workers (workers/chatbot/) read them.
 */

/** A resource of the index: what an index job looks at again. */
export interface ResourceRef {
  type: ResourceType;
  id: number;
}

/**
 * What the chatbot needs of a published blog post, folded from the blog's events by name: the
 * blog module owns its own read model, and indexing must not depend on its shape.
 */
export interface ChatbotBlogPostDoc {
  _id: number;
  id: number;
  title: string;
  slug: string;
  excerpt: string;
  content: string;
  status: string;
  /** `YYYY-MM-DD HH:MM:SS` UTC, or null when never published. */
  published_at: string | null;
  tags: string[];
  site_ids: number[];
  [key: string]: unknown;
}

export const CHATBOT_BLOG_POSTS = 'chatbot_blog_posts';

/** The scheduled-post check looks published posts up by publication time (the SQLite store indexes it). */
const CHATBOT_POST_INDEXES = { indexes: [['status', 'published_at']] } as const;

export const chatbotBlogPosts = (d: DocumentStore) =>
  d.collection<ChatbotBlogPostDoc>(CHATBOT_BLOG_POSTS, CHATBOT_POST_INDEXES);

/**
 * A resource whose index entry may be behind its read model: marked by the event that changed
 * it, removed by the index job that brought the entry in line (workers/chatbot/worker.ts).
 */
export interface IndexOutboxDoc {
  /** resourceKey(type, id). */
  _id: string;
  type: ResourceType;
  id: number;
  /** Log position of the latest event that marked it: a job removes the mark only if no later event replaced it. */
  position: number;
  /**
   * 'embed' once the index holds the resource's current text by its words only (stand-in
   * vectors): the model's vectors are what is still owed. Absent: the index job is owed.
   */
  stage?: 'embed';
  [key: string]: unknown;
}

export const CHATBOT_INDEX_OUTBOX = 'chatbot_index_outbox';

export const indexOutbox = (d: DocumentStore) => d.collection<IndexOutboxDoc>(CHATBOT_INDEX_OUTBOX);

/** The mark a change leaves for a resource. */
export function outboxMark(ref: ResourceRef, position: number): IndexOutboxDoc {
  return { _id: resourceKey(ref.type, ref.id), type: ref.type, id: ref.id, position };
}
