import { SITE_PAGE_EVENTS, SITE_PAGE_REVERTED } from '../../commands/platform/kinds.js';
import type { SitePageFields } from '../../commands/platform/fields.js';
import type { StoredEvent } from '../../infra/event-store/port.js';
import { pageVersions, type VersionOperation } from '../../queries/page-versioning/documents.js';
import { defineProjection } from '../projection.js';

const OPERATIONS: Record<string, VersionOperation> = {
  [SITE_PAGE_EVENTS.created]: 'create',
  [SITE_PAGE_EVENTS.updated]: 'update',
  [SITE_PAGE_REVERTED]: 'revert',
};

interface SavedPageData {
  id: number;
  fields?: Partial<SitePageFields>;
  summary?: unknown;
}

function isPageId(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) > 0;
}

/**
 * The version list: one row per create, update or revert of a site page, keyed by the event's
 * global position (so a redelivered event rewrites the same row). A deleted page takes its
 * versions with it: the list and the version reads then answer 404.
 */
export const pageVersionsProjection = defineProjection({
  name: 'page-versions',
  handles: [SITE_PAGE_EVENTS.created, SITE_PAGE_EVENTS.updated, SITE_PAGE_REVERTED, SITE_PAGE_EVENTS.deleted],
  async apply(event: StoredEvent, documents) {
    const data = event.data as SavedPageData;
    if (!isPageId(data?.id)) return;
    const versions = pageVersions(documents);
    if (event.type === SITE_PAGE_EVENTS.deleted) {
      await versions.deleteMany({ resource_id: data.id });
      return;
    }
    const operation = OPERATIONS[event.type];
    await versions.put({
      _id: event.position,
      id: event.position,
      resource_id: data.id,
      resource_type: 'site_page',
      stream_version: event.streamVersion,
      title: typeof data.fields?.title === 'string' ? data.fields.title : '',
      slug: typeof data.fields?.slug === 'string' ? data.fields.slug : '',
      operation,
      editor_id: event.metadata.userId ?? null,
      summary: operation === 'revert' && typeof data.summary === 'string' ? data.summary : null,
      saved_at: event.metadata.at,
    });
  },
});
