import type { RoutesPlugin } from '../http/routes-plugin.js';
import { installJsonBodyParser } from '../http/json-body.js';
import { refuseOtherMethods } from '../http/method-not-allowed.js';
import { answerVersion, IF_MATCH_CONFIG, ifMatchOf } from '../http/conditional/resource-version.js';
import { revertPage } from '../../commands/page-versioning/handlers.js';
import { RevertBody } from '../../commands/page-versioning/schemas.js';
import { BadRequestError, NotFoundError } from '../../infra/errors.js';
import { diffPages } from '../../queries/page-versioning/diff.js';
import { pageAtVersion } from '../../commands/page-versioning/replay.js';
import {
  findVersion,
  listVersions,
  pageReadableBy,
  previousVersion,
  summarize,
} from '../../queries/page-versioning/versions.js';
import type { Role } from '../../contracts/users/roles.js';
import { requireEditor, requireSession } from './access.js';
import {
  DiffQuery,
  DiffResponse,
  errors,
  ListQuery,
  ListResponse,
  PageParams,
  RevertResponse,
  TAG,
  VersionParams,
  VersionResponse,
} from './schemas.js';

const BASE = '/api/page-versioning';
const LIST = '/:pageId/versions';
const ONE = '/version/:versionId';
const REVERT = `${ONE}/revert`;
const DIFF = `${ONE}/diff`;

/**
 * Page version history (seed 002): list a page's versions, read one (replayed from the page's
 * stream), revert to one, and compare two. Login sessions only; `{status, data}` envelopes.
 */
export const pageVersioningRoutes: RoutesPlugin = async (app, { runtime }) => {
  await app.register(versionRoutes, { runtime, prefix: BASE });
};

/** The routes under /api/page-versioning, in their own scope for the body parser below. */
const versionRoutes: RoutesPlugin = async (scope, { runtime }) => {
  // The revert body is optional, so a JSON request with an empty body means "no summary".
  installJsonBodyParser(scope, { emptyBody: () => undefined });
  const { documents, eventStore } = runtime;

  /**
   * A version of a page the caller may not read is as unknown as one that never existed (seed:
   * 404 for private pages), with the same message, so ids cannot be probed for private pages.
   */
  async function readableVersion(versionId: number, role: Role) {
    const version = await findVersion(documents, versionId);
    if (!version || !(await pageReadableBy(documents, version.resource_id, role)))
      throw new NotFoundError('Version not found.');
    return version;
  }

  scope.get(
    LIST,
    {
      schema: {
        tags: [TAG],
        summary: "List a page's versions",
        description:
          'Versions of a site page, newest first, without their content. A version is recorded for every create, update or revert of the page; its id is an integer unique across all pages (the log position of the change that made it), so it never changes. `editor_id` is null (and `editor_name` empty) for changes made by the system, e.g. a fixture import. Needs a login session and a page the caller may read (private pages: Editor and above).',
        params: PageParams,
        querystring: ListQuery,
        response: { 200: ListResponse, ...errors(400, 403, 404) },
      },
    },
    async (request): Promise<ListResponse> => {
      const user = await requireSession(request);
      const { pageId } = request.params;
      const query = request.query;
      if (query.type !== 'site_page') throw new BadRequestError('Unsupported type: only site_page is versioned.');
      if (!(await pageReadableBy(documents, pageId, user.role))) throw new NotFoundError('Page not found.');
      const { total, versions } = await listVersions(documents, pageId, { limit: query.limit, offset: query.offset });
      return {
        status: 'ok',
        data: {
          resource_id: pageId,
          resource_type: 'site_page',
          total,
          limit: query.limit,
          offset: query.offset,
          versions,
        },
      };
    },
  );
  refuseOtherMethods(scope, LIST, ['GET']);

  scope.get(
    ONE,
    {
      schema: {
        tags: [TAG],
        summary: 'Read one version',
        description:
          "The version's summary plus `payload`, the page as that version saved it, rebuilt by replaying the page's event stream up to the version. The payload's keys are repeated at the top level. Needs a login session; a version of a private page is 404 below Editor, as its page is.",
        params: VersionParams,
        response: { 200: VersionResponse, ...errors(400, 403, 404) },
      },
    },
    async (request): Promise<VersionResponse> => {
      const user = await requireSession(request);
      const version = await readableVersion(request.params.versionId, user.role);
      const payload = await pageAtVersion(eventStore, version);
      const { title: _title, slug: _slug, ...rest } = payload;
      return { status: 'ok', data: { ...(await summarize(documents, version)), ...rest, payload } };
    },
  );
  refuseOtherMethods(scope, ONE, ['GET']);

  scope.post(
    REVERT,
    {
      schema: {
        tags: [TAG],
        summary: 'Revert a page to a version',
        description:
          "Restores the page to the version's content and records a new version with operation `revert` and the given summary (default `Reverted to version #N (saved YYYY-MM-DD HH:MM:SS)`, N being the version id). JSON or form body. Needs a login session with the Editor role or higher. 409 when the version's slug is now used by another page of the site.",
        params: VersionParams,
        body: RevertBody,
        response: { 200: RevertResponse, ...errors(400, 403, 404, 409) },
      },
      config: IF_MATCH_CONFIG,
      // The body is optional: no body at all means no summary.
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
    },
    async (request, reply): Promise<RevertResponse> => {
      const user = await requireEditor(request);
      const { versionId } = request.params;
      const body = request.body;
      await readableVersion(versionId, user.role);
      const { newVersionId, pageVersion } = await revertPage(runtime.commandContext(user.id, request.id), {
        versionId,
        summary: body.summary,
        ifMatch: ifMatchOf(request),
      });
      answerVersion(reply, pageVersion);
      return { status: 'ok', data: { new_version_id: newVersionId } };
    },
  );
  refuseOtherMethods(scope, REVERT, ['POST']);

  scope.get(
    DIFF,
    {
      schema: {
        tags: [TAG],
        summary: 'Compare a version with another',
        description:
          "Which page fields and which blocks (by position) differ between the `against` version (before) and this one (after). `against` defaults to the version saved just before; for a page's first version it is null and everything counts as new. Both versions must belong to the same page (400 otherwise). Needs a login session; a version of a private page is 404 below Editor, as its page is.",
        params: VersionParams,
        querystring: DiffQuery,
        response: { 200: DiffResponse, ...errors(400, 403, 404) },
      },
    },
    async (request): Promise<DiffResponse> => {
      const user = await requireSession(request);
      const version = await readableVersion(request.params.versionId, user.role);
      const { against } = request.query;
      const base =
        against === undefined ? await previousVersion(documents, version) : await findVersion(documents, against);
      if (against !== undefined && !base) throw new NotFoundError('Version to compare against not found.');
      if (base && base.resource_id !== version.resource_id)
        throw new BadRequestError('Both versions must belong to the same page.');
      const before = base ? await pageAtVersion(eventStore, base) : null;
      const after = await pageAtVersion(eventStore, version);
      return {
        status: 'ok',
        data: {
          version_id: version.id,
          against_version_id: base?.id ?? null,
          resource_id: version.resource_id,
          resource_type: 'site_page',
          ...diffPages(before, after),
        },
      };
    },
  );
  refuseOtherMethods(scope, DIFF, ['GET']);
};
