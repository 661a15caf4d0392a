import { ConflictError, NotFoundError, ValidationError } from '../../infra/errors.js';
import { pageVersions } from '../../contracts/page-versioning/documents.js';
import { pageAtVersion } from './replay.js';
import { findVersion } from '../../queries/page-versioning/versions.js';
import { sqlTimestamp } from '../../infra/clock/sql-timestamp.js';
import type { CommandContext } from '../command-context.js';
import { handleCommand } from '../handle-command.js';
import { ifMatching } from '../precondition.js';
import { currentFields, rewriteKeyed, SITE_PAGE } from '../platform/handlers.js';
import { sitePageStream } from '../platform/kinds.js';
import { versionedSitePageDecider } from './decider.js';
import type { RevertInput } from './schemas.js';

export interface RevertResult {
  /** The id of the new `revert` version. */
  newVersionId: number;
  /** The page's version after the revert: its new ETag's. */
  pageVersion: number;
}

/**
 * Restores a page to the content a version saved, by appending SitePageReverted to the page's
 * stream (with its expected version). `ifMatch`: the versions of the page the client's If-Match
 * names (the page's ETag, as GET /api/site_pages/{id} gives it).
 */
/** A revert to version `versionId`, with the editor's note; `ifMatch`, the client's If-Match. */
export interface RevertPage extends RevertInput {
  versionId: number;
  ifMatch?: readonly number[];
}

export async function revertPage(
  ctx: CommandContext,
  { versionId, summary, ifMatch }: RevertPage,
): Promise<RevertResult> {
  const version = await findVersion(ctx.documents, versionId);
  if (!version) throw new NotFoundError('Version not found.');
  const fields = await pageAtVersion(ctx.eventStore, version);
  const revert = (guard?: () => Promise<void>) =>
    handleCommand(ctx, {
      stream: sitePageStream(version.resource_id),
      decider: versionedSitePageDecider,
      command: {
        type: 'RevertSitePage',
        data: { target: { id: version.id, saved_at: sqlTimestamp(version.saved_at), fields }, summary },
      },
      beforeAppend: guard,
      ifMatch: ifMatching(ifMatch, SITE_PAGE.versionedBy),
    });
  let result: Awaited<ReturnType<typeof revert>>;
  try {
    // The old slug may belong to another page of the site by now, and its site may be gone.
    await SITE_PAGE.checkReferences(ctx, fields, version.resource_id);
    const before = await currentFields(ctx, SITE_PAGE, version.resource_id);
    result = before
      ? await rewriteKeyed(ctx, { spec: SITE_PAGE, id: version.resource_id, before, after: fields, write: revert })
      : await revert();
  } catch (error) {
    if (error instanceof ValidationError)
      throw new ConflictError(`The page cannot be reverted to version #${versionId}: ${error.message}`);
    throw error;
  }
  // handleCommand waited for the projections, so the new row is there; it is keyed by the
  // event's position as the subscription saw it, which is what the list shows.
  const recorded = await pageVersions(ctx.documents).findOne({
    resource_id: version.resource_id,
    stream_version: result.streamVersion,
  });
  return { newVersionId: recorded?.id ?? result.position, pageVersion: result.streamVersion };
}
