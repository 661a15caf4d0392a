import { SITE_PAGE_EVENTS, SITE_PAGE_REVERTED } from '../../contracts/platform/events.js';
import type { SitePageFields } from '../../contracts/platform/fields.js';
import { pageVersions, type VersionOperation } from '../../contracts/page-versioning/documents.js';
import { defineHandlerProjection, type Projected } from '../projection.js';

const OPERATIONS: Record<string, VersionOperation> = {
  [SITE_PAGE_EVENTS.created]: 'create',
  [SITE_PAGE_EVENTS.updated]: 'update',
  [SITE_PAGE_REVERTED]: 'revert',
};

/** A site page's events, named by kind at run time (contracts/platform/events.ts): their data is checked here. */
interface SavedPage {
  type: string;
  data: { id?: unknown; fields?: Partial<SitePageFields>; summary?: unknown } | null;
}

function isPageId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

/**
 * The version list: one row per create, update or revert of a site page, keyed by the event's
 * global position (so a redelivered event rewrites the same row). A deleted page takes its
 * versions with it (many rows: the escape hatch): the list and the version reads then answer 404.
 */
export const pageVersionsProjection = defineHandlerProjection({
  name: 'page-versions',
  handles: [SITE_PAGE_EVENTS.created, SITE_PAGE_EVENTS.updated, SITE_PAGE_REVERTED, SITE_PAGE_EVENTS.deleted],
  async handle(event: Projected<SavedPage>, documents) {
    const data = event.data;
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
