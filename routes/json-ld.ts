import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';

/** Omeka S style JSON-LD helpers shared by the native resources (platform, blog, backups). */
export function contextUrl(baseUrl: string): string {
  return `${baseUrl}/api-context`;
}

export function resourceUrl(baseUrl: string, resource: string, id: number): string {
  return `${baseUrl}/api/${resource}/${id}`;
}

export function reference(baseUrl: string, resource: string, id: number): { '@id': string; 'o:id': number } {
  return { '@id': resourceUrl(baseUrl, resource, id), 'o:id': id };
}

/** The keys every JSON-LD representation begins with (jsonLd); a type, so it fits a `Record<string, unknown>`. */
export type JsonLdHeader = {
  '@context': string;
  '@id': string;
  '@type': string;
  'o:id': number;
};

/** What a representation of type `T` (a response schema's Static) lists after its header. */
export type JsonLdBody<T extends JsonLdHeader> = Omit<T, keyof JsonLdHeader>;

/**
 * A JSON-LD representation: the header keys, then the body's. Built with Object.assign onto a
 * literal rather than `{ ...header, 'o:x': ... }`: in V8 (Node 20) adding keys to an object made
 * by a spread is a slow path, about 100 times the cost of a literal, and list responses build
 * thousands of these a second. Given its body's type (`jsonLd<JsonLdBody<BlogPost>>(...)`), the
 * body literal is checked against it: a key the schema declares and the body lacks, or one it
 * does not declare, does not compile.
 */
export function jsonLd<Body extends object>(
  baseUrl: string,
  type: string,
  resource: string,
  id: number,
  body: Body,
): JsonLdHeader & Body {
  return Object.assign(
    { '@context': contextUrl(baseUrl), '@id': resourceUrl(baseUrl, resource, id), '@type': type, 'o:id': id },
    body,
  );
}

/** Schema of the page/per_page query parameters; per_page is clamped by the route, not refused. */
export const PageQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1 })),
};

export interface PageWindow {
  page: number;
  perPage: number;
  skip: number;
}

export function pageWindow(
  query: { page?: number; per_page?: number },
  defaultPerPage: number,
  maxPerPage = 100,
): PageWindow {
  const page = query.page ?? 1;
  const perPage = Math.min(query.per_page ?? defaultPerPage, maxPerPage);
  return { page, perPage, skip: (page - 1) * perPage };
}

/** The headers setPaginationHeaders sets: a list's answer is its body with these. */
export const PAGINATION_HEADERS = ['Platform-Total-Results', 'Link'] as const;

/**
 * Sets `Platform-Total-Results` and a `Link` header with first, prev, next and last pages. The
 * links carry only the query parameters the route's querystring schema declares: never a
 * credential (`key_identity`, `key_credential`, a directory `token`), which a shared or logged
 * link would hand on, and never an unknown parameter, which a client could make as long as a
 * header may be (a 12 KB parameter written into four links is past what Node's client reads).
 * A list whose own filters are longer than MAX_LINK_QUERY_LENGTH gets no Link header at all.
 */
export function setPaginationHeaders(
  request: FastifyRequest,
  reply: FastifyReply,
  baseUrl: string,
  total: number,
  window: PageWindow,
): void {
  reply.header('Platform-Total-Results', String(total));
  // Lists are asked for again and again with the same URL: their Link header is made once per
  // total. Long URLs are not kept, so the cache stays small whatever clients send.
  const cacheable = request.url.length <= MAX_CACHED_URL_LENGTH;
  const key = `${total} ${baseUrl}${request.url}`;
  let link = cacheable ? linkHeaders.get(key) : undefined;
  if (link === undefined) {
    link = linkHeader(request.url, linkParameters(request), baseUrl, total, window);
    if (cacheable) {
      if (linkHeaders.size >= MAX_LINK_HEADERS) linkHeaders.clear();
      linkHeaders.set(key, link);
    }
  }
  if (link !== null) reply.header('Link', link);
}

const MAX_LINK_HEADERS = 1000;
const MAX_CACHED_URL_LENGTH = 512;
const linkHeaders = new Map<string, string | null>();

/** Parameters no link repeats: the page ones (each link sets its own) and credentials. */
const NEVER_IN_LINKS = new Set(['page', 'per_page', 'key_identity', 'key_credential', 'token']);
const NO_PARAMETERS: ReadonlySet<string> = new Set();
const linkParametersOf = new WeakMap<object, ReadonlySet<string>>();

/** The query parameters a list's links keep: those of the route's querystring schema. */
function linkParameters(request: FastifyRequest): ReadonlySet<string> {
  const schema: unknown = request.routeOptions?.schema?.querystring;
  if (schema === undefined || schema === null || typeof schema !== 'object') return NO_PARAMETERS;
  let known = linkParametersOf.get(schema);
  if (known === undefined) {
    const properties =
      'properties' in schema && typeof schema.properties === 'object' && schema.properties !== null
        ? schema.properties
        : {};
    known = new Set(Object.keys(properties).filter((name) => !NEVER_IN_LINKS.has(name)));
    linkParametersOf.set(schema, known);
  }
  return known;
}

/**
 * Longest query (the kept parameters) a Link header repeats in its links: four links of it stay
 * far below the 16 KB of headers Node's client (and most proxies) accept.
 */
export const MAX_LINK_QUERY_LENGTH = 2048;

function linkHeader(
  url: string,
  known: ReadonlySet<string>,
  baseUrl: string,
  total: number,
  window: PageWindow,
): string | null {
  const lastPage = Math.max(1, Math.ceil(total / window.perPage));
  const [path, search = ''] = url.split('?');
  // The kept parameters are parsed and written once; each link only appends its page.
  const params = new URLSearchParams();
  for (const [name, value] of new URLSearchParams(search)) if (known.has(name)) params.append(name, value);
  const others = params.toString();
  // Links without the list's own filters would lead to other results: better none at all.
  if (others.length > MAX_LINK_QUERY_LENGTH) return null;
  const prefix = `<${baseUrl}${path}?${others === '' ? '' : `${others}&`}`;
  const linkTo = (page: number) => `${prefix}page=${page}&per_page=${window.perPage}>`;
  const links = [`${linkTo(1)}; rel="first"`];
  if (window.page > 1) links.push(`${linkTo(Math.min(window.page - 1, lastPage))}; rel="prev"`);
  if (window.page < lastPage) links.push(`${linkTo(window.page + 1)}; rel="next"`);
  links.push(`${linkTo(lastPage)}; rel="last"`);
  return links.join(', ');
}

/** Generic JSON-LD object schema: representations are open objects of `o:` keys. */
export const JsonLdObject = Type.Object({}, { additionalProperties: true });
