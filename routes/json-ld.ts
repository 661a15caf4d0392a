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

/**
 * A JSON-LD representation: the header keys, then the body's. Built with Object.assign onto a
 * literal rather than `{ ...header, 'o:x': ... }`: in V8 (Node 20) adding keys to an object made
 * by a spread is a slow path, about 100 times the cost of a literal, and list responses build
 * thousands of these a second.
 */
export function jsonLd(baseUrl: string, type: string, resource: string, id: number, body: Record<string, unknown>): Record<string, unknown> {
  return Object.assign({ '@context': contextUrl(baseUrl), '@id': resourceUrl(baseUrl, resource, id), '@type': type, 'o:id': id }, body);
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

export function pageWindow(query: { page?: number; per_page?: number }, defaultPerPage: number, maxPerPage = 100): PageWindow {
  const page = query.page ?? 1;
  const perPage = Math.min(query.per_page ?? defaultPerPage, maxPerPage);
  return { page, perPage, skip: (page - 1) * perPage };
}

/** Sets `Platform-Total-Results` and a `Link` header with first, prev, next and last pages. */
export function setPaginationHeaders(
  request: FastifyRequest,
  reply: FastifyReply,
  baseUrl: string,
  total: number,
  window: PageWindow,
): void {
  reply.header('Platform-Total-Results', String(total));
  // Lists are asked for again and again with the same URL: their Link header is made once per total.
  const key = `${total} ${baseUrl}${request.url}`;
  let link = linkHeaders.get(key);
  if (link === undefined) {
    link = linkHeader(request.url, baseUrl, total, window);
    if (linkHeaders.size >= MAX_LINK_HEADERS) linkHeaders.clear();
    linkHeaders.set(key, link);
  }
  reply.header('Link', link);
}

const MAX_LINK_HEADERS = 1000;
const linkHeaders = new Map<string, string>();

function linkHeader(url: string, baseUrl: string, total: number, window: PageWindow): string {
  const lastPage = Math.max(1, Math.ceil(total / window.perPage));
  const [path, search = ''] = url.split('?');
  // The other parameters are parsed and written once; each link only appends its page.
  const params = new URLSearchParams(search);
  params.delete('page');
  params.delete('per_page');
  const others = params.toString();
  const prefix = `<${baseUrl}${path}?${others === '' ? '' : `${others}&`}`;
  const linkTo = (page: number) => `${prefix}page=${page}&per_page=${window.perPage}>`;
  const links = [`${linkTo(1)}; rel="first"`];
  if (window.page > 1) links.push(`${linkTo(Math.min(window.page - 1, lastPage))}; rel="prev"`);
  if (window.page < lastPage) links.push(`${linkTo(window.page + 1)}; rel="next"`);
  links.push(`${linkTo(lastPage)}; rel="last"`);
  return links.join(', ');
}

export { sqlTimestamp } from '../infra/clock/sql-timestamp.js';

/** Generic JSON-LD object schema: representations are open objects of `o:` keys. */
export const JsonLdObject = Type.Object({}, { additionalProperties: true });
