import type { Collection, Document, DocumentStore } from '../../infra/document-store/port.js';
import { type ResourceRef, chatbotBlogPosts } from '../../contracts/chatbot/documents.js';
import { items, mediaDocs, sitePages } from '../../contracts/platform/documents.js';

/** The `id` of every document, read alone: whole documents (texts included) would all be parsed for nothing. */
async function ids(collection: Collection<Document & { id: number }>): Promise<number[]> {
  return (await collection.find({}, { fields: ['id'] })).map((doc) => doc.id);
}

/** Every resource the index could hold, public or not: what a full reindex walks through. */
export async function allResources(documents: DocumentStore): Promise<ResourceRef[]> {
  return [
    ...(await ids(items(documents))).map((id) => ({ type: 'item' as const, id })),
    ...(await ids(mediaDocs(documents))).map((id) => ({ type: 'media' as const, id })),
    ...(await ids(sitePages(documents))).map((id) => ({ type: 'site_page' as const, id })),
    ...(await ids(chatbotBlogPosts(documents))).map((id) => ({ type: 'blog_post' as const, id })),
  ];
}
