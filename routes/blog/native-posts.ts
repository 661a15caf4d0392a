import { Type } from '@sinclair/typebox';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import { POST_STATUSES } from '../../contracts/blog/events.js';
import { CREATED_ETAG_CONFIG, IF_MATCH_CONFIG, ifMatchOf } from '../http/conditional/resource-version.js';
import { recordAnswers } from '../http/record-answers.js';
import { createPost, deletePost, updatePost } from '../../commands/blog/post-handlers.js';
import { CreatePostBody, UpdatePostBody } from '../../commands/blog/schemas.js';
import { findPost, listPosts, type PostFilters } from '../../queries/blog/posts.js';
import { PageQuery, PAGINATION_HEADERS, pageWindow, setPaginationHeaders } from '../json-ld.js';
import { RememberedAnswers } from '../remembered-answers.js';
import { postListJson, type PostSerializer } from './post-json.js';
import { BlogPostSchema, representPost } from './representations.js';
import { isPublic, NATIVE_SECURITY, nativeViewer, nonEmpty, oneOf, parseFlag, requireEditor } from './viewer.js';
import { sqlTimestamp } from '../../infra/clock/sql-timestamp.js';

const TAG = 'blog';
const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

const ListQuery = Type.Object({
  status: Type.Optional(
    Type.String({
      description:
        'draft, pending or published; honoured for Editor and above only, others always get published (other values ignored for them)',
    }),
  ),
  exclude_future: Type.Optional(
    Type.String({
      description: '1/true or 0/false: omit posts whose published_at is in the future; always on below Editor',
    }),
  ),
  site_id: Type.Optional(Type.Integer({ minimum: 1, description: 'Only posts assigned to this site' })),
  category_id: Type.Optional(Type.Integer({ minimum: 1, description: 'Category filter' })),
  category_slug: Type.Optional(Type.String({ description: 'Category slug filter; takes precedence over category_id' })),
  tag_slug: Type.Optional(Type.String({ description: 'Tag slug filter' })),
  author_id: Type.Optional(Type.Integer({ minimum: 1, description: 'Author user id filter' })),
  search: Type.Optional(Type.String({ description: 'Case-insensitive substring of title, excerpt or content' })),
  ...PageQuery,
});

/** Native /api/blog_posts: JSON-LD, role-aware visibility, create/update/delete for Editor and above. */
export const nativePostRoutes: RoutesPlugin = async (app, { runtime }) => {
  const { documents } = runtime;
  const baseUrl = runtime.config.baseUrl;
  const now = () => sqlTimestamp(runtime.clock.now());
  const listAnswers = new RememberedAnswers(documents, PAGINATION_HEADERS);
  const posts = recordAnswers({
    find: (id) => findPost(documents, id),
    notFound: 'Blog post not found.',
    represent: (post) => representPost(documents, baseUrl, post),
  });

  app.get(
    '',
    {
      schema: {
        tags: [TAG],
        summary: 'List blog posts, newest first',
        description:
          'Newest first: published_at descending (created_at for a post never published), then id. Callers below Editor get published posts whose published_at has passed; their status and exclude_future are ignored. Total in Platform-Total-Results; per_page default 10, above 100 treated as 100.',
        security: NATIVE_SECURITY,
        querystring: ListQuery,
        response: { 200: Type.Array(BlogPostSchema) },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const viewer = await nativeViewer(request);
      const filters: PostFilters = {
        siteId: q.site_id,
        categoryId: q.category_id,
        categorySlug: nonEmpty(q.category_slug),
        tagSlug: nonEmpty(q.tag_slug),
        authorId: q.author_id,
        search: nonEmpty(q.search),
      };
      if (viewer.seesEverything) {
        filters.status = oneOf(q.status, POST_STATUSES, 'status');
        if (parseFlag(q.exclude_future, 'exclude_future')) filters.notPublishedAfter = now();
      } else {
        filters.status = 'published';
        filters.notPublishedAfter = now();
      }
      const window = pageWindow(q, 10);
      // Who asks matters only as far as seesEverything; the clock, by the second, through notPublishedAfter.
      const key = `${viewer.seesEverything ? 'all' : 'public'}\u0000${filters.notPublishedAfter ?? ''}\u0000${request.url}`;
      const body = await listAnswers.body(key, reply, async () => {
        const { total, posts } = await listPosts(documents, filters, { skip: window.skip, limit: window.perPage });
        setPaginationHeaders(request, reply, baseUrl, total, window);
        const serialize: PostSerializer = reply.compileSerializationSchema(BlogPostSchema);
        return postListJson(documents, baseUrl, posts, serialize);
      });
      // Bytes are sent as they are: each post in them went through BlogPostSchema.
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );

  app.get(
    '/:id',
    {
      schema: {
        tags: [TAG],
        summary: 'Read one blog post',
        description: 'Draft, pending and scheduled posts are 404 for callers below Editor.',
        security: NATIVE_SECURITY,
        params: IdParams,
        response: { 200: BlogPostSchema },
      },
    },
    async (request, reply) => {
      const viewer = await nativeViewer(request);
      return posts.read(reply, request.params.id, (post) => !viewer.seesEverything && !isPublic(post, now()));
    },
  );

  app.post(
    '',
    {
      schema: {
        tags: [TAG],
        summary: 'Create a blog post (Editor and above)',
        description:
          'The author is the caller; status defaults to draft; published without published_at is published now. Answers 201 with the post.',
        security: NATIVE_SECURITY,
        body: CreatePostBody,
        response: { 201: BlogPostSchema },
      },
      config: CREATED_ETAG_CONFIG,
    },
    async (request, reply) => {
      const user = await requireEditor(request);
      const ctx = runtime.commandContext(user.id, request.id);
      return posts.created(reply, () => createPost(ctx, { authorId: user.id, input: request.body }));
    },
  );

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/:id',
      config: IF_MATCH_CONFIG,
      schema: {
        tags: [TAG],
        summary: 'Update a blog post (Editor and above); only the fields present change',
        description:
          'tags replaces the whole tag list (missing tags are created); site_ids replaces the site assignments; status published without published_at publishes now (a post already published keeps its time). Answers 200 with the post.',
        security: NATIVE_SECURITY,
        params: IdParams,
        body: UpdatePostBody,
        response: { 200: BlogPostSchema },
      },
      handler: async (request, reply) => {
        const user = await requireEditor(request);
        const id = request.params.id;
        const ctx = runtime.commandContext(user.id, request.id);
        return posts.updated(reply, id, () =>
          updatePost(ctx, { id, input: request.body, ifMatch: ifMatchOf(request) }),
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
        summary: 'Delete a blog post and its comments (Editor and above)',
        description: 'Answers 200 with the post as it was before deletion.',
        security: NATIVE_SECURITY,
        params: IdParams,
        response: { 200: BlogPostSchema },
      },
    },
    async (request) => {
      const user = await requireEditor(request);
      const id = request.params.id;
      return posts.deleted(id, () => deletePost(runtime.commandContext(user.id, request.id), id, ifMatchOf(request)));
    },
  );
};
