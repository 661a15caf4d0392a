import type { RoutesPlugin } from '../http/routes-plugin.js';
import { recordAssetUsage } from '../../commands/assets/asset-handlers.js';
import { UsageBody } from '../../commands/assets/schemas.js';
import { recentUsage } from '../../queries/assets/assets.js';
import { requireAssetWriter } from './access.js';
import { assetAnswers, representUsage, usageAnswers } from './representation.js';
import { errorResponses, IdParams, SESSION_SECURITY, TAG, UsageEnvelope, UsageListEnvelope } from './schemas.js';

/** Under the assets prefix (routes/assets/index.ts). */
const PATH = '/:id/usage';

export const usageRoutes: RoutesPlugin = async (app, { runtime }) => {
  const assets = assetAnswers(runtime.documents, runtime.config.baseUrl);
  const usages = usageAnswers(runtime.documents);
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
      await assets.found(id);
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
      const ctx = runtime.commandContext(user.id, request.id);
      return usages.created(reply, () => recordAssetUsage(ctx, request.params.id, request.body));
    },
  );
};
