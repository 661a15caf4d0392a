import type { DocumentStore } from '../../infra/document-store/port.js';
import { stripHtml } from '../../infra/text/html.js';
import type { IndexedResource } from '../../infra/vector-index/port.js';
import { type ResourceRef, chatbotBlogPosts, type ChatbotBlogPostDoc } from '../../contracts/chatbot/documents.js';
import {
  items,
  mediaDocs,
  sitePages,
  type ItemDoc,
  type MediaDoc,
  type SitePageDoc,
} from '../../contracts/platform/documents.js';

/** A public resource as the index holds it: its metadata and its plain text (title excluded). */
export interface ExtractedResource extends IndexedResource {
  text: string;
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, the format posts carry their publication time in. */
export function sqlDateTime(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

export function isPublicPost(post: Pick<ChatbotBlogPostDoc, 'status' | 'published_at'>, now: Date): boolean {
  return post.status === 'published' && post.published_at !== null && post.published_at <= sqlDateTime(now);
}

/** Every string inside a block's data (html, text, captions...), HTML stripped. */
function blockText(value: unknown, out: string[]): void {
  if (typeof value === 'string') {
    const text = stripHtml(value);
    if (text) out.push(text);
  } else if (Array.isArray(value)) {
    for (const entry of value) blockText(entry, out);
  } else if (value && typeof value === 'object') {
    for (const entry of Object.values(value)) blockText(entry, out);
  }
}

const paragraphs = (...parts: string[]): string =>
  parts
    .map((p) => p.trim())
    .filter(Boolean)
    .join('\n');

function fromItem(item: ItemDoc): ExtractedResource | null {
  if (!item.is_public) return null;
  return {
    resourceType: 'item',
    resourceId: item.id,
    title: item.title,
    path: `/item/${item.id}`,
    siteIds: item.site_ids ?? [],
    itemSetIds: item.item_set_ids ?? [],
    text: stripHtml(item.description ?? ''),
  };
}

/** A media is public only when its item is, and it inherits the item's sites and sets. */
function fromMedia(media: MediaDoc, item: ItemDoc | null): ExtractedResource | null {
  if (!media.is_public || !item?.is_public) return null;
  return {
    resourceType: 'media',
    resourceId: media.id,
    title: media.title,
    path: `/media/${media.id}`,
    siteIds: item.site_ids ?? [],
    itemSetIds: item.item_set_ids ?? [],
    text: stripHtml(media.text ?? ''),
  };
}

function fromPage(page: SitePageDoc): ExtractedResource | null {
  if (!page.is_public) return null;
  const parts: string[] = [];
  for (const block of page.blocks ?? []) blockText(block.data, parts);
  return {
    resourceType: 'site_page',
    resourceId: page.id,
    title: page.title,
    path: `/page/${encodeURIComponent(page.slug)}`,
    siteIds: [page.site_id],
    itemSetIds: [],
    text: paragraphs(...parts),
  };
}

function fromPost(post: ChatbotBlogPostDoc, now: Date): ExtractedResource | null {
  if (!isPublicPost(post, now)) return null;
  return {
    resourceType: 'blog_post',
    resourceId: post.id,
    title: post.title,
    path: `/blog/${encodeURIComponent(post.slug)}`,
    siteIds: post.site_ids,
    itemSetIds: [],
    text: paragraphs(
      stripHtml(post.excerpt),
      stripHtml(post.content),
      post.tags.length ? `Tags: ${post.tags.join(', ')}` : '',
    ),
  };
}

/**
 * Loads the resource from the read models as it is now and returns what the public site shows
 * of it, or null when the public site does not show it (missing, private, unpublished, future).
 */
export async function extractResource(
  documents: DocumentStore,
  ref: ResourceRef,
  now: Date,
): Promise<ExtractedResource | null> {
  switch (ref.type) {
    case 'item': {
      const item = await items(documents).findOne({ _id: ref.id });
      return item ? fromItem(item) : null;
    }
    case 'media': {
      const media = await mediaDocs(documents).findOne({ _id: ref.id });
      if (!media) return null;
      return fromMedia(media, await items(documents).findOne({ _id: media.item_id }));
    }
    case 'site_page': {
      const page = await sitePages(documents).findOne({ _id: ref.id });
      return page ? fromPage(page) : null;
    }
    case 'blog_post': {
      const post = await chatbotBlogPosts(documents).findOne({ _id: ref.id });
      return post ? fromPost(post, now) : null;
    }
    default: {
      const _exhaustive: never = ref.type;
      return null;
    }
  }
}
