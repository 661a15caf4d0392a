import { Type } from '@sinclair/typebox';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import { MethodNotAllowedError } from '../../infra/errors.js';
import { recordAnswers } from '../http/record-answers.js';
import { findTag, listTags } from '../../queries/blog/taxonomy.js';
import { PageQuery, pageWindow, setPaginationHeaders } from '../json-ld.js';
import { BlogTagSchema, representTag } from './representations.js';
import { NATIVE_SECURITY } from './viewer.js';

const TAG = 'blog';
const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
const NO_WRITES =
  'Blog tags have no create, update or delete operation; tags are created through the tags field of a post.';
const NotAllowed = Type.Object({ errors: Type.Object({ error: Type.String() }) }, { description: NO_WRITES });

/** Native /api/blog_tags: read only. Writes answer 405 with an Allow header, on both paths alike. */
export const nativeTagRoutes: RoutesPlugin = async (app, { runtime }) => {
  const { documents } = runtime;
  const baseUrl = runtime.config.baseUrl;
  const tags = recordAnswers({
    find: (id) => findTag(documents, id),
    notFound: 'Blog tag not found.',
    represent: (tag) => representTag(baseUrl, tag),
  });

  app.get(
    '',
    {
      schema: {
        tags: [TAG],
        summary: 'List blog tags by name',
        description:
          'Every tag, ordered by name (case-insensitive). Without per_page all are returned; with it, pages of at most 100. Total in Platform-Total-Results.',
        security: NATIVE_SECURITY,
        querystring: Type.Object(PageQuery),
        response: { 200: Type.Array(BlogTagSchema) },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const all = await listTags(documents);
      const window = pageWindow(q, Math.max(all.length, 1), q.per_page === undefined ? Number.MAX_SAFE_INTEGER : 100);
      setPaginationHeaders(request, reply, baseUrl, all.length, window);
      return all.slice(window.skip, window.skip + window.perPage).map((tag) => representTag(baseUrl, tag));
    },
  );

  app.get(
    '/:id',
    {
      schema: {
        tags: [TAG],
        summary: 'Read one blog tag',
        security: NATIVE_SECURITY,
        params: IdParams,
        response: { 200: BlogTagSchema },
      },
    },
    async (request, reply) => tags.read(reply, request.params.id),
  );

  const refuse =
    (allow: string) => async (_request: unknown, reply: { header(name: string, value: string): unknown }) => {
      reply.header('Allow', allow);
      throw new MethodNotAllowedError(NO_WRITES);
    };
  app.route({
    method: ['POST', 'PUT', 'PATCH', 'DELETE'],
    url: '',
    schema: {
      tags: [TAG],
      summary: 'Not available: tags cannot be written (405)',
      description: NO_WRITES,
      response: { 405: NotAllowed },
    },
    handler: refuse('GET'),
  });
  app.route({
    method: ['POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/:id',
    schema: {
      tags: [TAG],
      summary: 'Not available: tags cannot be written (405)',
      description: NO_WRITES,
      response: { 405: NotAllowed },
    },
    handler: refuse('GET'),
  });
};
