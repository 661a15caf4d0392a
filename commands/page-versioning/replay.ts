import { foldEvents } from '../decider.js';
import { toDomainEvents } from '../handle-command.js';
import type { SitePageFields } from '../../contracts/platform/fields.js';
import { sitePageDecider, sitePageStream } from '../platform/kinds.js';
import type { ResourceEvent } from '../../contracts/platform/events.js';
import type { EventStore } from '../../infra/event-store/port.js';
import { NotFoundError } from '../../infra/errors.js';
import type { PageVersionDoc } from '../../contracts/page-versioning/documents.js';

/**
 * The page as a version saved it, rebuilt by replaying the page's stream up to that version
 * (never from a stored copy), so it is exactly what the page's decider saw at that point.
 */
export async function pageAtVersion(
  eventStore: EventStore,
  version: Pick<PageVersionDoc, 'resource_id' | 'stream_version'>,
): Promise<SitePageFields> {
  const stored = await eventStore.readStream(sitePageStream(version.resource_id));
  const upTo = stored.filter((event) => event.streamVersion <= version.stream_version);
  const state = foldEvents(sitePageDecider, toDomainEvents<ResourceEvent<SitePageFields>>(upTo));
  if (!state.fields) throw new NotFoundError('Version not found.');
  return state.fields;
}
