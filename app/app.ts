import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { parse as parseQueryString } from 'fast-querystring';
import { randomUUID } from 'node:crypto';
import { authPlugin } from '../routes/http/auth.js';
import { installConditionalRequests } from './conditional/hook.js';
import { trustedProxies } from '../routes/http/client-address.js';
import { installErrorHandler } from './error-handler.js';
import { installJsonBodyParser, JSON_BODY_LIMIT, JSON_LIMITS } from '../routes/http/json-body.js';
import { lazyChildLoggerFactory } from './lazy-request-logger.js';
import { completeOperation, nameOperations } from './openapi-operations.js';
import { installPermissionGate } from './permission-gate.js';
import type { Runtime } from './runtime.js';
import type { TypeBoxRequestProvider } from '../routes/http/type-provider.js';
import { buildSerializerOnFirstUse } from './serialization.js';
import { markFormBody, validatorCompiler } from '../routes/http/validation.js';
import { authRoutes } from '../routes/auth.js';

/**
 * Builds the HTTP app on a runtime: plugins, the one error handler, the OpenAPI document, and
 * every module's routes. Listening is the caller's business (bin/serve.ts, or app.inject in tests).
 */
export async function buildApp(runtime: Runtime): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: runtime.logger as FastifyBaseLogger,
    bodyLimit: JSON_BODY_LIMIT,
    // Forwarding headers only from TRUST_PROXY's proxies (request.ip); none when it is unset.
    trustProxy: trustedProxies(runtime.config) ?? false,
    genReqId: () => randomUUID(),
    childLoggerFactory: lazyChildLoggerFactory,
    logController: new LogController({ disableRequestLogging: runtime.config.logLevel !== 'debug' }),
    schemaController: { compilersFactory: { buildSerializer: buildSerializerOnFirstUse } },
  }).withTypeProvider<TypeBoxRequestProvider>();
  app.setValidatorCompiler(validatorCompiler);

  installErrorHandler(app);
  // Before any route: every route must have an entry in app/permissions.ts.
  installPermissionGate(app);
  installConditionalRequests(app);
  await app.register(cookie);
  installJsonBodyParser(app);
  // formbody's own parser, with each body marked as a form's: its fields are text, coerced when validated.
  await app.register(formbody, { bodyLimit: JSON_BODY_LIMIT, parser: (text) => markFormBody(parseQueryString(text)) });
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Collections backend API',
        description:
          'Library database directory, collection chatbot, blog, backups, asset library, page version history and the host platform resources. ' +
          `Every JSON body: at most 1 MiB (413), ${JSON_LIMITS.depth} levels of nesting, ${JSON_LIMITS.keysPerObject} keys in an object, ` +
          `${JSON_LIMITS.entriesPerArray} entries in an array, ${JSON_LIMITS.values} values in all, and no \`__proto__\` key; past a limit ` +
          "it is refused when parsed with 422 on native resources and the legacy blog, 400 elsewhere, in the surface's error shape.",
        version: '1.0.0',
      },
      servers: [{ url: runtime.config.baseUrl }],
      components: {
        securitySchemes: {
          apiKeyIdentity: { type: 'apiKey', in: 'query', name: 'key_identity' },
          apiKeyCredential: { type: 'apiKey', in: 'query', name: 'key_credential' },
          session: { type: 'apiKey', in: 'cookie', name: 'sid' },
          directoryToken: { type: 'http', scheme: 'bearer' },
        },
      },
    },
    transform: ({ schema, url, route }) => ({ schema: completeOperation(schema, url, route), url }),
    transformObject: (document) =>
      nameOperations('openapiObject' in document ? document.openapiObject : document.swaggerObject),
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });
  app.get('/api/docs.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(authPlugin, { runtime });
  await app.register(authRoutes, { runtime });
  for (const module of runtime.modules) {
    const { routes } = runtime.module(module);
    if (routes) await app.register(routes, { runtime });
  }
  return app;
}
