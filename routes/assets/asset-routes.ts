import { Type } from '@sinclair/typebox';
import type { AssetRoutesOptions } from './options.js';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import { IF_MATCH_CONFIG, ifMatchOf } from '../http/conditional/resource-version.js';
import { bulkDeleteAssets, bulkUpdateAssets, deleteAsset } from '../../commands/assets/asset-handlers.js';
import { BulkBody } from '../../commands/assets/schemas.js';
import { invalid } from '../../commands/assets/rules.js';
import { findAssets, listAssets } from '../../queries/assets/assets.js';
import { requireAssetWriter } from './access.js';
import { assetAnswers, representAsset } from './representation.js';
import {
  AssetEnvelope,
  AssetListQuery,
  AssetPageEnvelope,
  AssetsEnvelope,
  DeletedEnvelope,
  errorResponses,
  IdParams,
  MessageEnvelope,
  SESSION_SECURITY,
  TAG,
} from './schemas.js';

const DEFAULT_PER_PAGE = 24;
const MAX_PER_PAGE = 100;

/** The keys of a bulk body that change the assets: all but the ids and the action. */
const CHANGES = Object.keys(BulkBody.properties).filter((key) => key !== 'ids' && key !== 'action');

export const assetRoutes: RoutesPlugin<AssetRoutesOptions> = async (app, { runtime, storage }) => {
  const baseUrl = runtime.config.baseUrl;
  const assets = assetAnswers(runtime.documents, baseUrl);

  app.get(
    '',
    {
      schema: {
        tags: [TAG],
        security: SESSION_SECURITY,
        summary: 'A page of assets',
        description:
          'Newest first by default. `sort_by=name` orders by `metadata.title` (case-insensitive); `search` matches it as a substring.',
        querystring: AssetListQuery,
        response: { 200: AssetPageEnvelope, ...errorResponses },
      },
    },
    async (request) => {
      const query = request.query;
      const page = query.page ?? 1;
      const perPage = Math.min(query.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
      const { assets, total } = await listAssets(runtime.documents, {
        page,
        perPage,
        sortBy: query.sort_by ?? 'id',
        sortOrder: query.sort_order ?? 'desc',
        folderId: query.folder_id ? Number(query.folder_id) : undefined,
        search: query.search,
      });
      return {
        status: 'success' as const,
        assets: assets.map((a) => representAsset(a, baseUrl)),
        total,
        page,
        per_page: perPage,
      };
    },
  );

  app.get(
    '/:id',
    {
      schema: {
        tags: [TAG],
        security: SESSION_SECURITY,
        summary: 'One asset',
        params: IdParams,
        response: { 200: AssetEnvelope, ...errorResponses },
      },
    },
    async (request, reply) => assets.read(reply, request.params.id),
  );

  app.delete(
    '/:id',
    {
      config: IF_MATCH_CONFIG,
      schema: {
        tags: [TAG],
        security: SESSION_SECURITY,
        summary: 'Delete an asset',
        description: 'Removes its folder assignments and usage records, then the asset and its file.',
        params: IdParams,
        response: { 200: MessageEnvelope, ...errorResponses },
      },
    },
    async (request) => {
      const user = await requireAssetWriter(request);
      await deleteAsset(runtime.commandContext(user.id, request.id), {
        storage,
        id: request.params.id,
        ifMatch: ifMatchOf(request),
      });
      return { status: 'success' as const, message: 'Asset deleted.' };
    },
  );

  app.patch(
    '/bulk',
    {
      schema: {
        tags: [TAG],
        security: SESSION_SECURITY,
        summary: 'Bulk update or bulk delete assets',
        description:
          `With any of ${CHANGES.map((key) => `\`${key}\``).join(', ')}: only the keys present change; ` +
          '`folder_id` moves the assets into that one folder and `folder_id: null` takes them out of every folder; answers `{status, assets}`. ' +
          'With `action: "delete"`: deletes them all and answers `{status, deleted: [ids]}`. Every id must exist (404 otherwise, and nothing changes).',
        body: BulkBody,
        response: { 200: Type.Union([AssetsEnvelope, DeletedEnvelope]), ...errorResponses },
      },
    },
    async (request) => {
      const user = await requireAssetWriter(request);
      const body = request.body;
      const ids = [...new Set(body.ids)];
      const ctx = runtime.commandContext(user.id, request.id);
      if (body.action === 'delete') {
        return { status: 'success' as const, deleted: await bulkDeleteAssets(ctx, storage, ids) };
      }
      if (CHANGES.every((key) => Reflect.get(body, key) === undefined)) {
        throw invalid('ids', `Give at least one of ${CHANGES.join(', ')}, or action: "delete".`);
      }
      await bulkUpdateAssets(ctx, ids, body);
      const byId = new Map((await findAssets(runtime.documents, ids)).map((asset) => [asset.id, asset]));
      const assets = ids.flatMap((id) => {
        const asset = byId.get(id);
        return asset ? [representAsset(asset, baseUrl)] : [];
      });
      return { status: 'success' as const, assets };
    },
  );
};
