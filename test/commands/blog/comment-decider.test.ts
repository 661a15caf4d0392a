import t from 'tap';
import {
  blogCommentDecider,
  takesComments,
  type BlogCommentCommand,
  type CommentedPost,
} from '../../../commands/blog/comment-decider.js';
import type { BlogCommentEvent } from '../../../contracts/blog/events.js';
import { ConflictError, NotFoundError, ValidationError } from '../../../infra/errors.js';
import { deciderSpec } from '../../decider-spec.js';

const spec = deciderSpec<ReturnType<typeof blogCommentDecider.initialState>, BlogCommentCommand, BlogCommentEvent>(
  blogCommentDecider,
);
const NOW = '2026-06-01 12:00:00';
const fields = { post_id: 1, author_name: 'Bo', author_email: 'bo@example.org', body: 'Nice <b>post</b>' };
const published: CommentedPost = { status: 'published', published_at: '2026-01-01 00:00:00' };
const posted: BlogCommentEvent = {
  type: 'BlogCommentPosted',
  data: { id: 9, fields: { ...fields, status: 'pending' } },
};

t.test('a comment on a published post is always pending', async (t) => {
  spec
    .given([])
    .when({ type: 'PostBlogComment', data: { id: 9, fields, post: published, now: NOW } })
    .then(t, [posted]);
});

t.test('a comment needs a published post whose publish time has passed', async (t) => {
  for (const post of [
    null,
    { status: 'draft', published_at: null },
    { status: 'pending', published_at: '2026-01-01 00:00:00' },
    { status: 'published', published_at: '2026-06-01 12:00:01' },
  ] as (CommentedPost | null)[]) {
    spec
      .given([])
      .when({ type: 'PostBlogComment', data: { id: 9, fields, post, now: NOW } })
      .thenThrows(t, ValidationError, JSON.stringify(post));
  }
  t.ok(takesComments({ status: 'published', published_at: NOW }, NOW), 'published exactly now takes comments');
});

t.test('a comment needs every field and a plausible email', async (t) => {
  for (const bad of [{ author_name: '' }, { author_email: 'nope' }, { body: '  ' }]) {
    spec
      .given([])
      .when({ type: 'PostBlogComment', data: { id: 9, fields: { ...fields, ...bad }, post: published, now: NOW } })
      .thenThrows(t, ValidationError, JSON.stringify(bad));
  }
  spec
    .given([posted])
    .when({ type: 'PostBlogComment', data: { id: 9, fields, post: published, now: NOW } })
    .thenThrows(t, ConflictError);
});

t.test('imported comments keep their status', async (t) => {
  spec
    .given([])
    .when({ type: 'ImportBlogComment', data: { id: 9, fields: { ...fields, status: 'approved' } } })
    .then(t, [{ type: 'BlogCommentPosted', data: { id: 9, fields: { ...fields, status: 'approved' } } }]);
});

t.test('moderation: only approved or spam', async (t) => {
  spec
    .given([posted])
    .when({ type: 'ModerateBlogComment', data: { status: 'approved' } })
    .then(t, [{ type: 'BlogCommentModerated', data: { id: 9, status: 'approved' } }]);
  spec
    .given([posted])
    .when({ type: 'ModerateBlogComment', data: { status: 'spam' } })
    .then(t, [{ type: 'BlogCommentModerated', data: { id: 9, status: 'spam' } }]);
  for (const status of ['pending', 'deleted', '', 'APPROVED']) {
    spec.given([posted]).when({ type: 'ModerateBlogComment', data: { status } }).thenThrows(t, ValidationError, status);
  }
  spec
    .given([])
    .when({ type: 'ModerateBlogComment', data: { status: 'approved' } })
    .thenThrows(t, NotFoundError);
});

t.test('moderation is folded into the state', async (t) => {
  const state = [posted, { type: 'BlogCommentModerated', data: { id: 9, status: 'spam' } } as BlogCommentEvent].reduce(
    (s, e) => blogCommentDecider.evolve(s, e),
    blogCommentDecider.initialState(),
  );
  t.equal(state.fields?.status, 'spam');
});

t.test('delete removes the comment once', async (t) => {
  spec
    .given([posted])
    .when({ type: 'DeleteBlogComment', data: {} })
    .then(t, [{ type: 'BlogCommentDeleted', data: { id: 9, post_id: 1 } }]);
  spec
    .given([posted, { type: 'BlogCommentDeleted', data: { id: 9, post_id: 1 } }])
    .when({ type: 'DeleteBlogComment', data: {} })
    .thenThrows(t, NotFoundError);
});
