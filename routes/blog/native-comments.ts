import { Type } from '@sinclair/typebox';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import { IF_MATCH_CONFIG, ifMatchOf } from '../http/conditional/resource-version.js';
import { recordAnswers } from '../http/record-answers.js';
import { deleteComment, moderateComment, postComment } from '../../commands/blog/comment-handlers.js';
import { CreateCommentBody, ModerateCommentBody } from '../../commands/blog/schemas.js';
import { COMMENT_STATUSES } from '../../contracts/blog/events.js';
import { findComment, listComments } from '../../queries/blog/comments.js';
import { postsHiddenFromPublic } from '../../queries/blog/hidden-posts.js';
import { findPost } from '../../queries/blog/posts.js';
import type { BlogCommentDoc } from '../../contracts/blog/documents.js';
import { PageQuery, pageWindow, setPaginationHeaders } from '../json-ld.js';
import { BlogCommentSchema, representComment } from './representations.js';
import { isPublic, NATIVE_SECURITY, nativeViewer, oneOf, requireEditor } from './viewer.js';
import { sqlTimestamp } from '../../infra/clock/sql-timestamp.js';

const TAG = 'blog';
const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
const ListQuery = Type.Object({
  status: Type.Optional(
    Type.String({
      description: 'pending, approved or spam; honoured for Editor and above only, others always get approved',
    }),
  ),
  post_id: Type.Optional(Type.Integer({ minimum: 1 })),
  ...PageQuery,
});
/** Native /api/blog_comments: everyone reads what is approved and may comment; Editor and above moderate. */
export const nativeCommentRoutes: RoutesPlugin = async (app, { runtime }) => {
  const { documents } = runtime;
  const baseUrl = runtime.config.baseUrl;
  const now = () => sqlTimestamp(runtime.clock.now());
  const postIsPublic = async (postId: number) => {
    const post = await findPost(documents, postId);
    return post !== null && isPublic(post, now());
  };
  /** Comments as Editor and above see them (with o:author_email), or as everyone else does. */
  const commentAnswers = (withEmail: boolean) =>
    recordAnswers({
      find: (id) => findComment(documents, id),
      notFound: 'Blog comment not found.',
      represent: (comment: BlogCommentDoc) => representComment(baseUrl, comment, withEmail),
    });
  const forEditors = commentAnswers(true);
  const forPublic = commentAnswers(false);
  /** Below Editor, only approved comments of posts the public site shows. */
  const hiddenFromPublic = async (comment: BlogCommentDoc) =>
    !(comment.status === 'approved' && (await postIsPublic(comment.post_id)));

  app.get(
    '',
    {
      schema: {
        tags: [TAG],
        summary: 'List blog comments, newest first',
        description:
          'Callers below Editor get approved comments of posts the public site shows (published, publish time passed) only, without o:author_email; their status is ignored. per_page default 50, above 100 treated as 100; total in Platform-Total-Results.',
        security: NATIVE_SECURITY,
        querystring: ListQuery,
        response: { 200: Type.Array(BlogCommentSchema) },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const viewer = await nativeViewer(request);
      const status = viewer.seesEverything ? oneOf(q.status, COMMENT_STATUSES, 'status') : 'approved';
      const window = pageWindow(q, 50);
      // Below Editor, comments of posts the public site does not show are hidden like their posts.
      const exceptPostIds = viewer.seesEverything ? undefined : await postsHiddenFromPublic(documents, now());
      const { total, comments } = await listComments(
        documents,
        { status, postId: q.post_id, exceptPostIds },
        { skip: window.skip, limit: window.perPage },
      );
      setPaginationHeaders(request, reply, baseUrl, total, window);
      return comments.map((c) => representComment(baseUrl, c, viewer.seesEverything));
    },
  );

  app.get(
    '/:id',
    {
      schema: {
        tags: [TAG],
        summary: 'Read one blog comment',
        description:
          'Pending and spam comments, and comments of posts the public site does not show, are 404 for callers below Editor.',
        security: NATIVE_SECURITY,
        params: IdParams,
        response: { 200: BlogCommentSchema },
      },
    },
    async (request, reply) => {
      const viewer = await nativeViewer(request);
      const id = request.params.id;
      return viewer.seesEverything ? forEditors.read(reply, id) : forPublic.read(reply, id, hiddenFromPublic);
    },
  );

  app.post(
    '',
    {
      schema: {
        tags: [TAG],
        summary: 'Post a comment (open to everyone); it is pending until moderated',
        description:
          'The post must be published (and its publish time passed), else 422. The Enable comments setting is not checked here. Answers 201 with the comment.',
        security: NATIVE_SECURITY,
        body: CreateCommentBody,
        response: { 201: BlogCommentSchema },
      },
    },
    async (request, reply) => {
      const viewer = await nativeViewer(request);
      const ctx = runtime.commandContext(viewer.user?.id ?? null, request.id);
      return (viewer.seesEverything ? forEditors : forPublic).created(reply, () => postComment(ctx, request.body));
    },
  );

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/:id',
      config: IF_MATCH_CONFIG,
      schema: {
        tags: [TAG],
        summary: 'Moderate a comment (Editor and above): status approved or spam',
        description:
          'Only status is read; other fields are ignored. Any other status value is refused with 422. Answers 200 with the comment.',
        security: NATIVE_SECURITY,
        params: IdParams,
        body: ModerateCommentBody,
        response: { 200: BlogCommentSchema },
      },
      handler: async (request, reply) => {
        const user = await requireEditor(request);
        const id = request.params.id;
        const ctx = runtime.commandContext(user.id, request.id);
        return forEditors.updated(reply, id, () =>
          moderateComment(ctx, { id, input: request.body, ifMatch: ifMatchOf(request) }),
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
        summary: 'Delete a comment (Editor and above)',
        description: 'Answers 200 with the comment as it was before deletion.',
        security: NATIVE_SECURITY,
        params: IdParams,
        response: { 200: BlogCommentSchema },
      },
    },
    async (request) => {
      const user = await requireEditor(request);
      const id = request.params.id;
      return forEditors.deleted(id, () =>
        deleteComment(runtime.commandContext(user.id, request.id), id, ifMatchOf(request)),
      );
    },
  );
};
