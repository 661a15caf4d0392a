import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../app/runtime.js';
import { deleteComment, moderateComment, postComment, type CommentInput } from '../../commands/blog/comment-handlers.js';
import { COMMENT_STATUSES } from '../../commands/blog/events.js';
import { NotFoundError } from '../../infra/errors.js';
import { findComment, listComments } from '../../queries/blog/comments.js';
import { PageQuery, pageWindow, setPaginationHeaders } from '../json-ld.js';
import { BlogCommentSchema, representComment } from './representations.js';
import { NATIVE_SECURITY, nativeViewer, oneOf, requireEditor } from './viewer.js';

const TAG = 'blog';
const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
const ListQuery = Type.Object({
  status: Type.Optional(Type.String({ description: 'pending, approved or spam; honoured for Editor and above only, others always get approved' })),
  post_id: Type.Optional(Type.Integer({ minimum: 1 })),
  ...PageQuery,
});
const CreateBody = Type.Object({
  post_id: Type.Integer({ minimum: 1 }),
  author_name: Type.String(),
  author_email: Type.String(),
  body: Type.String({ description: 'Stored as written; answered as text (&, < and > escaped)' }),
});
const ModerateBody = Type.Object(
  { status: Type.String({ description: 'approved or spam; any other value is refused with 422' }) },
  { description: 'Other fields are ignored.' },
);

/** Native /api/blog_comments: everyone reads what is approved and may comment; Editor and above moderate. */
export async function nativeCommentRoutes(app: FastifyInstance, runtime: Runtime): Promise<void> {
  const { documents } = runtime;
  const baseUrl = runtime.config.baseUrl;

  app.get(
    '/api/blog_comments',
    {
      schema: {
        tags: [TAG],
        summary: 'List blog comments, newest first',
        description:
          'Callers below Editor get approved comments only, without o:author_email; their status is ignored. per_page default 50, above 100 treated as 100; total in Platform-Total-Results.',
        security: NATIVE_SECURITY,
        querystring: ListQuery,
        response: { 200: Type.Array(BlogCommentSchema) },
      },
    },
    async (request, reply) => {
      const q = request.query as { status?: string; post_id?: number; page?: number; per_page?: number };
      const viewer = await nativeViewer(request);
      const status = viewer.seesEverything ? oneOf(q.status, COMMENT_STATUSES, 'status') : 'approved';
      const window = pageWindow(q, 50);
      const { total, comments } = await listComments(documents, { status, postId: q.post_id }, window.skip, window.perPage);
      setPaginationHeaders(request, reply, baseUrl, total, window);
      return comments.map((c) => representComment(baseUrl, c, viewer.seesEverything));
    },
  );

  app.get(
    '/api/blog_comments/:id',
    {
      schema: {
        tags: [TAG],
        summary: 'Read one blog comment',
        description: 'Pending and spam comments are 404 for callers below Editor.',
        security: NATIVE_SECURITY,
        params: IdParams,
        response: { 200: BlogCommentSchema },
      },
    },
    async (request) => {
      const viewer = await nativeViewer(request);
      const comment = await findComment(documents, (request.params as { id: number }).id);
      if (!comment || (!viewer.seesEverything && comment.status !== 'approved')) throw new NotFoundError('Blog comment not found.');
      return representComment(baseUrl, comment, viewer.seesEverything);
    },
  );

  app.post(
    '/api/blog_comments',
    {
      schema: {
        tags: [TAG],
        summary: 'Post a comment (open to everyone); it is pending until moderated',
        description: 'The post must be published (and its publish time passed), else 422. The Enable comments setting is not checked here. Answers 201 with the comment.',
        security: NATIVE_SECURITY,
        body: CreateBody,
        response: { 201: BlogCommentSchema },
      },
    },
    async (request, reply) => {
      const viewer = await nativeViewer(request);
      const id = await postComment(runtime.commandContext(viewer.user?.id ?? null, request.id), request.body as CommentInput);
      const comment = await findComment(documents, id);
      if (!comment) throw new NotFoundError('Blog comment not found.');
      return reply.status(201).send(representComment(baseUrl, comment, viewer.seesEverything));
    },
  );

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/api/blog_comments/:id',
      schema: {
        tags: [TAG],
        summary: 'Moderate a comment (Editor and above): status approved or spam',
        description: 'Only status is read; other fields are ignored. Any other status value is refused with 422. Answers 200 with the comment.',
        security: NATIVE_SECURITY,
        params: IdParams,
        body: ModerateBody,
        response: { 200: BlogCommentSchema },
      },
      handler: async (request) => {
        const user = await requireEditor(request);
        const id = (request.params as { id: number }).id;
        const { status } = request.body as { status: string };
        await moderateComment(runtime.commandContext(user.id, request.id), id, status);
        const comment = await findComment(documents, id);
        if (!comment) throw new NotFoundError('Blog comment not found.');
        return representComment(baseUrl, comment, true);
      },
    });
  }

  app.delete(
    '/api/blog_comments/:id',
    {
      schema: {
        tags: [TAG],
        summary: 'Delete a comment (Editor and above)',
        description: 'Answers 200 with the comment as it was before deletion.',
        security: NATIVE_SECURITY,
        params: IdParams,
        response: { 200: BlogCommentSchema },
      },
    },
    async (request) => {
      const user = await requireEditor(request);
      const id = (request.params as { id: number }).id;
      const comment = await findComment(documents, id);
      if (!comment) throw new NotFoundError('Blog comment not found.');
      const representation = representComment(baseUrl, comment, true);
      await deleteComment(runtime.commandContext(user.id, request.id), id);
      return representation;
    },
  );
}
