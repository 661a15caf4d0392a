import type { RoutesPlugin } from '../http/routes-plugin.js';
import { recordAssetUsage } from '../../commands/assets/asset-handlers.js';
import { UsageBody } from '../../commands/assets/schemas.js';
import { NotFoundError } from '../../infra/errors.js';
import { findAsset, findUsage, recentUsage } from '../../queries/assets/assets.js';
import { requireAssetWriter } from './access.js';
import { representUsage } from './representation.js';
import { errorResponses, IdParams, SESSION_SECURITY, TAG, UsageEnvelope, UsageListEnvelope } from './schemas.js';

/** Under the assets prefix (routes/assets/index.ts). */
const PATH = '/:id/usage';

export const usageRoutes: RoutesPlugin = async (app, { runtime }) => {
  app.get(
    PATH,
    {
      schema: {
        tags: [TAG],
        security: SESSION_SECURITY,
        summary: "An asset's usage records",
        description: 'The most recent 100 records, newest first.',
        params: IdParams,
        response: { 200: UsageListEnvelope, ...errorResponses },
      },
    },
    async (request) => {
      const id = request.params.id;
      if (!(await findAsset(runtime.documents, id))) throw new NotFoundError('Asset not found.');
      return { status: 'success' as const, usage: (await recentUsage(runtime.documents, id)).map(representUsage) };
    },
  );

  app.post(
    PATH,
    {
      schema: {
        tags: [TAG],
        security: SESSION_SECURITY,
        summary: 'Record a usage of an asset',
        description: 'The rich-text editor calls it on every insertion. `context_id` is an integer or null.',
        params: IdParams,
        body: UsageBody,
        response: { 201: UsageEnvelope, ...errorResponses },
      },
    },
    async (request, reply) => {
      const user = await requireAssetWriter(request);
      const usageId = await recordAssetUsage(
        runtime.commandContext(user.id, request.id),
        request.params.id,
        request.body,
      );
      const usage = await findUsage(runtime.documents, usageId);
      if (!usage) throw new NotFoundError('Usage record not found.');
      return reply.status(201).send({ status: 'success', usage: representUsage(usage) });
    },
  );
};
