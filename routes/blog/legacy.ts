import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import { SESSION_ONLY, type Principal } from '../http/auth.js';
import { refuseOtherMethods } from '../http/method-not-allowed.js';
import { recordAnswers } from '../http/record-answers.js';
import { knownFields } from '../../infra/schema/record-fields.js';
import { postComment } from '../../commands/blog/comment-handlers.js';
import { createPost } from '../../commands/blog/post-handlers.js';
import {
  LegacyCommentBody,
  LegacyCreatePostBody,
  type CommentInput,
  type CreatePostInput,
  type LegacyCommentInput,
} from '../../commands/blog/schemas.js';
import { ForbiddenError, UnauthorizedError, ValidationError } from '../../infra/errors.js';
import { findPost, listPosts } from '../../queries/blog/posts.js';
import { readBlogSettings } from '../../queries/blog/settings.js';
import { pageWindow } from '../json-ld.js';
import { LegacyListSchema, LegacyPostSchema, representLegacyPost } from './representations.js';
import { nonEmpty, SESSION_SECURITY } from './viewer.js';

const TAG = 'blog-legacy';
const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

const ListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  per_page: Type.Optional(
    Type.Integer({ minimum: 1, description: 'default 10, maximum 100 (larger values are treated as 100)' }),
  ),
  tag_slug: Type.Optional(Type.String()),
  category_slug: Type.Optional(Type.String()),
  author_id: Type.Optional(Type.Integer({ minimum: 1 })),
  search: Type.Optional(Type.String({ description: 'Case-insensitive substring of title, excerpt or content' })),
});

const CommentCreated = Type.Object({ id: Type.Integer(), status: Type.Literal('pending') });

function tagList(tags: string[] | string | undefined): string[] | undefined {
  if (tags === undefined) return undefined;
  const names = Array.isArray(tags) ? tags : tags.split(',');
  return names.map((name) => name.trim()).filter((name) => name !== '');
}

/** The comment a legacy body gives, or a 422 naming each field missing or blank. */
function legacyComment(postId: number, body: LegacyCommentInput): CommentInput {
  const { author_name = '', author_email = '', body: text = '' } = body;
  const given = { author_name, author_email, body: text };
  const missing = (['author_name', 'author_email', 'body'] as const).filter((field) => !given[field].trim());
  if (missing.length > 0) {
    throw new ValidationError(
      `${missing[0]}: This field is required.`,
      Object.fromEntries(missing.map((f) => [f, ['This field is required.']])),
    );
  }
  return { post_id: postId, ...given };
}

/** Legacy /api/blog/: plain JSON, published posts only, browser sessions only (API keys are not read). */
export const legacyBlogRoutes: RoutesPlugin = async (app, { runtime }) => {
  const { documents } = runtime;
  const posts = recordAnswers({
    find: (id) => findPost(documents, id),
    notFound: 'Post not found.',
    represent: representLegacyPost,
  });

  async function sessionUser(request: FastifyRequest): Promise<Principal> {
    const user = await request.principal(SESSION_ONLY);
    if (!user) throw new UnauthorizedError('Log in to create posts.');
    return user;
  }

  app.get(
    '/posts',
    {
      schema: {
        operationId: 'listLegacyBlogPosts',
        tags: [TAG],
        summary: 'Published posts, newest first (legacy)',
        description: 'Always public. Scheduled (future-dated) published posts are included; there is no site filter.',
        querystring: ListQuery,
        response: { 200: LegacyListSchema },
      },
    },
    async (request) => {
      const q = request.query;
      const window = pageWindow(q, 10, 100);
      const { total, posts } = await listPosts(
        documents,
        {
          status: 'published',
          tagSlug: nonEmpty(q.tag_slug),
          categorySlug: nonEmpty(q.category_slug),
          authorId: q.author_id,
          search: nonEmpty(q.search),
        },
        { skip: window.skip, limit: window.perPage },
      );
      return {
        data: posts.map(representLegacyPost),
        total,
        page: window.page,
        per_page: window.perPage,
        total_pages: Math.ceil(total / window.perPage),
      };
    },
  );

  app.get(
    '/posts/:id',
    {
      schema: {
        operationId: 'getLegacyBlogPost',
        tags: [TAG],
        summary: 'One published post (legacy)',
        description: 'A published post, scheduled ones included; 404 for any other.',
        params: IdParams,
        response: { 200: LegacyPostSchema },
      },
    },
    async (request, reply) => posts.read(reply, request.params.id, (post) => post.status !== 'published'),
  );

  app.post(
    '/posts',
    {
      schema: {
        operationId: 'createLegacyBlogPost',
        tags: [TAG],
        summary: 'Create a post as the logged-in user (legacy; any role)',
        description:
          'Session only: anonymous requests (and API keys) get 401. status defaults to draft; site assignments cannot be set. Answers 201 with the post.',
        security: SESSION_SECURITY,
        body: LegacyCreatePostBody,
        response: { 201: LegacyPostSchema },
      },
    },
    async (request, reply) => {
      const user = await sessionUser(request);
      // Only the keys the legacy body declares (it cannot set site assignments), its tags as a list.
      const { tags, ...fields } = knownFields(LegacyCreatePostBody, request.body);
      const input: CreatePostInput = { ...fields, tags: tagList(tags) };
      const ctx = runtime.commandContext(user.id, request.id);
      return posts.created(reply, () => createPost(ctx, { authorId: user.id, input }));
    },
  );

  app.post(
    '/posts/:id/comments',
    {
      preValidation: async () => {
        if (!(await readBlogSettings(documents)).comments_enabled) throw new ForbiddenError('Comments are disabled.');
      },
      schema: {
        operationId: 'createLegacyBlogComment',
        tags: [TAG],
        summary: 'Comment on a published post (legacy; no login needed)',
        description:
          'Body author_name, author_email, body (all required). 201 {id, status: "pending"}; 403 when comments are disabled; 422 for a missing field or a post that is not published (an id that does not exist answers the same); 405 for other methods.',
        params: IdParams,
        body: LegacyCommentBody,
        response: { 201: CommentCreated },
      },
    },
    async (request, reply) => {
      const postId = request.params.id;
      const comment = legacyComment(postId, request.body ?? {});
      // No 404 for an id that does not exist: it answers as an unpublished post does (the seed's
      // 422), so the answer never tells which unpublished posts exist.
      const user = await request.principal(SESSION_ONLY);
      const id = await postComment(runtime.commandContext(user?.id ?? null, request.id), comment);
      return reply.status(201).send({ id, status: 'pending' as const });
    },
  );

  refuseOtherMethods(app, '/posts', ['GET', 'POST']);
  refuseOtherMethods(app, '/posts/:id', ['GET']);
  refuseOtherMethods(app, '/posts/:id/comments', ['POST']);
};
