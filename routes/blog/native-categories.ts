import { Type } from '@sinclair/typebox';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import { CREATED_ETAG_CONFIG, IF_MATCH_CONFIG, ifMatchOf } from '../http/conditional/resource-version.js';
import { recordAnswers } from '../http/record-answers.js';
import { createCategory, deleteCategory, updateCategory } from '../../commands/blog/category-handlers.js';
import { CreateCategoryBody, UpdateCategoryBody } from '../../commands/blog/schemas.js';
import { findCategory, listCategories } from '../../queries/blog/taxonomy.js';
import { PageQuery, pageWindow, setPaginationHeaders } from '../json-ld.js';
import { BlogCategorySchema, representCategory } from './representations.js';
import { NATIVE_SECURITY, requireEditor } from './viewer.js';

const TAG = 'blog';
const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
/** Native /api/blog_categories: everyone reads, Editor and above write. */
export const nativeCategoryRoutes: RoutesPlugin = async (app, { runtime }) => {
  const { documents } = runtime;
  const baseUrl = runtime.config.baseUrl;

  const categories = recordAnswers({
    find: (id) => findCategory(documents, id),
    notFound: 'Blog category not found.',
    represent: (category) => representCategory(baseUrl, category),
  });

  app.get(
    '',
    {
      schema: {
        tags: [TAG],
        summary: 'List blog categories by name',
        description:
          'Every category, ordered by name (case-insensitive); no filters. Without per_page all are returned; with it, pages of at most 100. Total in Platform-Total-Results.',
        security: NATIVE_SECURITY,
        querystring: Type.Object(PageQuery),
        response: { 200: Type.Array(BlogCategorySchema) },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const all = await listCategories(documents);
      const window = pageWindow(q, Math.max(all.length, 1), q.per_page === undefined ? Number.MAX_SAFE_INTEGER : 100);
      setPaginationHeaders(request, reply, baseUrl, all.length, window);
      return all.slice(window.skip, window.skip + window.perPage).map((c) => representCategory(baseUrl, c));
    },
  );

  app.get(
    '/:id',
    {
      schema: {
        tags: [TAG],
        summary: 'Read one blog category',
        security: NATIVE_SECURITY,
        params: IdParams,
        response: { 200: BlogCategorySchema },
      },
    },
    async (request, reply) => categories.read(reply, request.params.id),
  );

  app.post(
    '',
    {
      schema: {
        tags: [TAG],
        summary: 'Create a blog category (Editor and above)',
        description: 'Answers 201 with the category.',
        security: NATIVE_SECURITY,
        body: CreateCategoryBody,
        response: { 201: BlogCategorySchema },
      },
      config: CREATED_ETAG_CONFIG,
    },
    async (request, reply) => {
      const user = await requireEditor(request);
      return categories.created(reply, () => createCategory(runtime.commandContext(user.id, request.id), request.body));
    },
  );

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/:id',
      config: IF_MATCH_CONFIG,
      schema: {
        tags: [TAG],
        summary: 'Update a blog category (Editor and above); only the fields present change',
        description: 'Answers 200 with the category.',
        security: NATIVE_SECURITY,
        params: IdParams,
        body: UpdateCategoryBody,
        response: { 200: BlogCategorySchema },
      },
      handler: async (request, reply) => {
        const user = await requireEditor(request);
        const id = request.params.id;
        const ctx = runtime.commandContext(user.id, request.id);
        return categories.updated(reply, id, () =>
          updateCategory(ctx, { id, input: request.body, ifMatch: ifMatchOf(request) }),
        );
      },
    });
  }

  app.delete(
    '/:id',
    {
      config: IF_MATCH_CONFIG,
      schema: {
        tags: [TAG],
        summary: 'Delete a blog category (Editor and above); its posts become uncategorised',
        description: 'Answers 200 with the category as it was before deletion.',
        security: NATIVE_SECURITY,
        params: IdParams,
        response: { 200: BlogCategorySchema },
      },
    },
    async (request) => {
      const user = await requireEditor(request);
      const id = request.params.id;
      return categories.deleted(id, () =>
        deleteCategory(runtime.commandContext(user.id, request.id), id, ifMatchOf(request)),
      );
    },
  );
};
