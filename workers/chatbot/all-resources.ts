import type { DocumentStore } from '../../infra/document-store/port.js';
import type { ResourceRef } from '../../projections/chatbot/index-jobs.js';
import { chatbotBlogPosts } from '../../projections/chatbot/blog-posts.js';
import { items, mediaDocs, sitePages } from '../../queries/platform/documents.js';

/** Every resource the index could hold, public or not: what a full reindex walks through. */
export async function allResources(documents: DocumentStore): Promise<ResourceRef[]> {
  const ids = async (docs: Promise<{ id: number }[]>) => (await docs).map((d) => d.id);
  return [
    ...(await ids(items(documents).find({}))).map((id) => ({ type: 'item' as const, id })),
    ...(await ids(mediaDocs(documents).find({}))).map((id) => ({ type: 'media' as const, id })),
    ...(await ids(sitePages(documents).find({}))).map((id) => ({ type: 'site_page' as const, id })),
    ...(await ids(chatbotBlogPosts(documents).find({}))).map((id) => ({ type: 'blog_post' as const, id })),
  ];
}
