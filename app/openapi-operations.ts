import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifySchema, RouteOptions } from 'fastify';
import { ERROR_BODIES, surfaceFor, validationStatusFor } from '../routes/http/error-format.js';
import type { Credential, Permission } from './permissions.js';
import { SOMETIMES_SENT, sometimesSent } from '../routes/http/documented-responses.js';

/**
 * Completes each operation of the OpenAPI document from what the app already knows, so no route
 * can forget it: a stable operationId, its security (from the permission table), the 4xx answers
 * it can give in its surface's error shape, and the headers it sends. It changes the document
 * only: responses are still serialised through the schemas the routes declare.
 */

const RETRY_AFTER = { 'Retry-After': Type.Integer({ description: 'Seconds to wait before trying again.' }) };
const PAGINATION = {
  'Platform-Total-Results': Type.Integer({ description: 'How many records match, over all pages.' }),
  Link: sometimesSent(
    Type.String({
      description:
        'RFC 8288 links to the first, previous, next and last pages (`rel="first"` ...), carrying only the parameters the route knows; left out when those parameters are too long to repeat.',
    }),
  ),
};
const LOCATION = { Location: Type.String({ description: 'Where the client is sent.' }) };
const ETAG = {
  ETag: Type.String({
    description:
      'Strong `"<version>-<digest>"` for a single editable resource (the version is what If-Match is checked against), weak `W/"<digest>"` otherwise; it differs per viewer whenever the body may.',
  }),
};
const CACHING = {
  ...ETAG,
  'Cache-Control': Type.String({
    description:
      '`public, max-age=0, must-revalidate` for anonymous callers, `private, no-cache` for a caller with credentials.',
  }),
  Vary: sometimesSent(
    Type.String({
      description:
        'The request headers the answer depends on (`Cookie` where a session is read, `Authorization` where a directory token is); absent when it depends on none.',
    }),
  ),
};
/** The directory API answers each Origin differently (CORS, allowed origins); the chatbot does when its origins are listed. */
const VARY_ORIGIN = Type.String({ description: '`Origin`, with any request header the answer also depends on.' });
const IF_NONE_MATCH = Type.Optional(
  Type.String({
    description:
      'ETags of answers the client holds (or `*`): when one matches the current answer for this caller, 304 without body. A malformed value matches nothing.',
  }),
);
const IF_MATCH = Type.Optional(
  Type.String({
    description:
      "The ETag the client last read (or `*`): the write goes ahead only when it names the resource's current version, else 412 and nothing changes. Without it, the write goes ahead as always. A malformed or weak value matches nothing.",
  }),
);

type Headers = Record<string, TSchema>;

interface Answer {
  description: string;
  headers?: Headers;
}

/** `GET /api/blog_posts/{id}` (or `:id`) → `getApiBlogPostsById`: stable as long as the route is. */
export function derivedOperationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((segment) => segment.replace(/^\{(.*)\}$/, ':$1'))
    .map((segment) => (segment.startsWith(':') ? `by_${segment.slice(1)}` : segment === '*' ? 'path' : segment))
    .flatMap((segment) => segment.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return method.toLowerCase() + words.map((word) => word[0].toUpperCase() + word.slice(1)).join('');
}

const SCHEMES: Record<Credential, Record<string, string[]>> = {
  api_key: { apiKeyIdentity: [], apiKeyCredential: [] },
  session: { session: [] },
  directory_token: { directoryToken: [] },
};

/**
 * Each way to call the operation; `{}` first when a caller needs no credential at all. The
 * directory's `?token=` stays a documented query parameter of its routes: a query-string security
 * scheme of that name would hide it.
 */
export function securityFor(permission: Permission): Record<string, string[]>[] {
  const ways: Record<string, string[]>[] = permission.credentials.map((credential) => SCHEMES[credential]);
  const anonymousWelcome = permission.allow === 'public' || permission.allow === 'everyone';
  return anonymousWelcome && ways.length > 0 ? [{}, ...ways] : ways;
}

function isRateLimited(method: string, url: string): boolean {
  return url.startsWith('/chatbot/api/') || url.startsWith('/api/v1/') || (method === 'POST' && url === '/login');
}

/** A list answered as pages: a JSON array on a native surface, with `page` and `per_page` in its query. */
function isPaginatedList(method: string, url: string, schema: FastifySchema): boolean {
  const ok = (schema.response as Record<string, { type?: string }> | undefined)?.['200'];
  const query = (schema.querystring as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  return method === 'GET' && surfaceFor(url) === 'native' && ok?.type === 'array' && 'per_page' in query;
}

/** The Vary every answer of the surface carries, whatever its status; undefined where the conditional hook alone sets it. */
function varyOf(url: string): TSchema | undefined {
  if (url.startsWith('/api/v1/')) return VARY_ORIGIN;
  if (url.startsWith('/chatbot/api/'))
    return sometimesSent({ ...VARY_ORIGIN, description: '`Origin` when CHATBOT_ALLOWED_ORIGINS lists origins.' });
  return undefined;
}

/** The 4xx answers an operation can give, whatever its route declared. */
function clientErrors(
  method: string,
  url: string,
  schema: FastifySchema,
  permission: Permission | undefined,
): Map<number, Answer> {
  const answers = new Map<number, Answer>();
  const add = (status: number, description: string, headers?: Headers) => {
    const known = answers.get(status);
    answers.set(
      status,
      known
        ? { description: `${known.description} Or: ${description}`, headers: known.headers ?? headers }
        : { description, headers },
    );
  };
  const surface = surfaceFor(url);
  if (schema.body) {
    add(400, 'The body is not valid JSON, or holds a key that is not accepted.');
    add(413, 'The body is too large.');
    add(415, 'The content type is not accepted.');
  }
  if (schema.body || schema.querystring || schema.params) {
    add(
      validationStatusFor(surface, url),
      'The request is not valid: each message names the field and what it accepts.',
    );
  }
  if (permission?.anonymous) add(permission.anonymous.status, permission.anonymous.message);
  if (permission?.insufficientRole) add(permission.insufficientRole.status, permission.insufficientRole.message);
  if (permission?.credentials.includes('api_key'))
    add(403, 'The API key pair (key_identity, key_credential) is wrong.');
  if (url.includes(':') || url.includes('*')) add(404, 'Not found, or not visible to the caller.');
  if (isRateLimited(method, url))
    add(429, 'Too many requests from this client; wait as Retry-After says.', RETRY_AFTER);
  return answers;
}

/** The answer with the generic headers added; a header the route documents itself keeps its own description. */
function withHeaders(response: TSchema | undefined, description: string, headers: Headers): TSchema {
  const base = response ?? Type.Null({ description });
  return { ...base, headers: { ...headers, ...((base as { headers?: Headers }).headers ?? {}) } } as TSchema;
}

/** The answer with the surface's Vary, which wins over the conditional hook's (the hook adds to it). */
function withVary(response: TSchema, vary: TSchema): TSchema {
  const headers = (response as { headers?: Headers }).headers ?? {};
  return { ...response, headers: { ...headers, Vary: vary } } as TSchema;
}

/** Redirects name where to go; 304 (also 3xx) does not. */
const REDIRECTS = new Set(['301', '302', '303', '307', '308']);

/** The transform of @fastify/swagger: the route's schema as the document shows it. */
export function completeOperation(schema: FastifySchema | undefined, url: string, route: RouteOptions): FastifySchema {
  const own: FastifySchema = schema ?? {};
  if ((own as { hide?: boolean }).hide) return own;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const method = methods.find((m) => m !== 'HEAD') ?? 'GET';
  const permission = route.config?.permissions?.[method];
  // Without a declared response the plugin would document a default 200; the 4xx added must not hide it.
  const responses: Record<string, TSchema> = {
    ...((own.response as Record<string, TSchema> | undefined) ?? { 200: Type.Unknown({ description: 'Success.' }) }),
    ...documentedResponses(route),
  };
  for (const [status, answer] of clientErrors(method, url, own, permission)) {
    const declared = responses[String(status)];
    responses[String(status)] = declared
      ? withHeaders(declared, answer.description, answer.headers ?? {})
      : {
          ...ERROR_BODIES[surfaceFor(url)],
          description: answer.description,
          ...(answer.headers ? { headers: answer.headers } : {}),
        };
  }
  if (isPaginatedList(method, url, own))
    responses['200'] = withHeaders(responses['200'], 'The page asked for.', PAGINATION);
  const conditional = conditionalParts(method, url, route, own, responses);
  const vary = varyOf(url);
  for (const status of Object.keys(responses)) {
    if (REDIRECTS.has(status)) responses[status] = withHeaders(responses[status], 'A redirect.', LOCATION);
    if (vary) responses[status] = withVary(responses[status], vary);
  }
  return {
    ...own,
    ...(route.config?.documentedBody ? { body: route.config.documentedBody } : {}),
    ...(permission ? { security: securityFor(permission) } : {}),
    ...(conditional ? { headers: conditional } : {}),
    response: responses,
  } as FastifySchema;
}

/** The answers the route's config documents beyond its response schemas (routes/http/documented-responses.ts). */
function documentedResponses(route: RouteOptions): Record<string, TSchema> {
  return Object.fromEntries(Object.entries(route.config?.documentedResponses ?? {}));
}

/**
 * The conditional request headers of an operation (app/conditional/hook.ts): If-None-Match and a
 * 304 on every read, If-Match and a 412 on writes whose route honours it; the ETag and caching
 * headers they answer. Returns the request headers' schema, or undefined when it adds none.
 */
function conditionalParts(
  method: string,
  url: string,
  route: RouteOptions,
  own: FastifySchema,
  responses: Record<string, TSchema>,
): TSchema | undefined {
  const read = method === 'GET';
  const write = route.config?.ifMatch === true;
  if (route.config?.createdETag && responses['201']) responses['201'] = withHeaders(responses['201'], 'Created.', ETAG);
  if (!read && !write) return undefined;
  const ok = Object.keys(responses).find((status) => status === '200' || status === '201');
  // A deletion answers the record as it was: no current version for an ETag to name.
  if (ok && method !== 'DELETE') responses[ok] = withHeaders(responses[ok], 'Success.', read ? CACHING : ETAG);
  // Only a 200 can become a 304 (app/conditional/hook.ts): a redirect cannot.
  // It keeps every header the handler set before the hook answered it (a list's total, its Link).
  if (read && responses['200']) {
    const kept = (responses['200'] as { headers?: Headers }).headers ?? {};
    responses['304'] ??= Type.Null({
      description: 'Not modified: the ETag If-None-Match named is current for this caller. No body.',
      headers: { ...CACHING, ...kept },
    });
  }
  if (write) {
    responses['412'] = {
      ...ERROR_BODIES[surfaceFor(url)],
      description:
        'Precondition failed: If-Match does not name the current version; nothing changed. ETag holds the current version (`"<version>"`), which If-Match accepts.',
      headers: ETAG,
    } as TSchema;
  }
  const declared = (own.headers as { properties?: Record<string, TSchema>; required?: string[] } | undefined) ?? {};
  return Type.Object(
    { ...(declared.properties ?? {}), ...(read ? { 'If-None-Match': IF_NONE_MATCH } : { 'If-Match': IF_MATCH }) },
    { required: declared.required },
  );
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

type OperationsByMethod = Record<
  string,
  { operationId?: string; responses?: Record<string, DocumentedResponse> } | undefined
>;

/**
 * The transformObject of @fastify/swagger: names every operation the route did not name. Done on
 * the document, where each method of a route has an operation of its own (a route serving
 * several methods shares one schema, so the transform cannot name them apart).
 */
export function nameOperations<Document extends { paths?: object }>(document: Document): Document {
  for (const [path, operations] of Object.entries((document.paths ?? {}) as Record<string, OperationsByMethod>)) {
    for (const [method, operation] of Object.entries(operations)) {
      // The methods of one route share one operation object: each gets a copy with its own name.
      if (HTTP_METHODS.has(method) && operation && !operation.operationId)
        operations[method] = { ...operation, operationId: derivedOperationId(method, path) };
      if (HTTP_METHODS.has(method) && operations[method]) operations[method] = requireHeaders(operations[method]);
    }
  }
  return document;
}

interface ResponseHeader {
  schema?: Record<string, unknown>;
  required?: boolean;
}
interface DocumentedResponse {
  headers?: Record<string, ResponseHeader>;
}

/**
 * Marks `required` each response header the answer always sends: all but those the routes marked
 * `sometimesSent` (whose marker goes, the description saying when). A client generated from the
 * document may then rely on them, and test/app/openapi-answers.test.ts checks that they are sent.
 */
function requireHeaders<Operation extends { responses?: Record<string, DocumentedResponse> }>(
  operation: Operation,
): Operation {
  const responses = Object.fromEntries(
    Object.entries(operation.responses ?? {}).map(([status, response]) => {
      if (!response.headers) return [status, response];
      const headers = Object.fromEntries(
        Object.entries(response.headers).map(([name, header]) => {
          const { [SOMETIMES_SENT]: sometimes, ...schema } = header.schema ?? {};
          return [name, sometimes ? { ...header, schema } : { ...header, schema, required: true }];
        }),
      );
      return [status, { ...response, headers }];
    }),
  );
  return operation.responses ? { ...operation, responses } : operation;
}
