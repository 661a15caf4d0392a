import t from 'tap';
import { blogPostDecider, type BlogPostCommand } from '../../../commands/blog/post-decider.js';
import { foldEvents } from '../../../commands/decider.js';
import type { BlogPostEvent, BlogPostFields } from '../../../contracts/blog/events.js';
import { ConflictError, NotFoundError, ValidationError } from '../../../infra/errors.js';
import { deciderSpec } from '../../decider-spec.js';

const spec = deciderSpec<ReturnType<typeof blogPostDecider.initialState>, BlogPostCommand, BlogPostEvent>(
  blogPostDecider,
);
const NOW = '2026-06-01 12:00:00';

const draft: BlogPostFields = {
  title: 'Hello',
  slug: 'hello',
  excerpt: '<em>short</em>',
  content: '<p>body</p>',
  status: 'draft',
  author_id: 3,
  category_id: 1,
  featured_image_asset_id: null,
  featured_image_url: null,
  published_at: null,
  tags: ['maps'],
  site_ids: [1],
};
const created: BlogPostEvent = { type: 'BlogPostCreated', data: { id: 7, fields: draft } };

t.test('create: the status given is kept (draft is the handler default)', async (t) => {
  spec
    .given([])
    .when({ type: 'CreateBlogPost', data: { id: 7, fields: draft, now: NOW } })
    .then(t, [created]);
  const pending = { ...draft, status: 'pending' as const };
  spec
    .given([])
    .when({ type: 'CreateBlogPost', data: { id: 7, fields: pending, now: NOW } })
    .then(t, [{ type: 'BlogPostCreated', data: { id: 7, fields: pending } }]);
});

t.test('create published without published_at: published now, with a Published fact', async (t) => {
  spec
    .given([])
    .when({ type: 'CreateBlogPost', data: { id: 7, fields: { ...draft, status: 'published' }, now: NOW } })
    .then(t, [
      { type: 'BlogPostCreated', data: { id: 7, fields: { ...draft, status: 'published', published_at: NOW } } },
      { type: 'BlogPostPublished', data: { id: 7, published_at: NOW } },
    ]);
});

t.test('create published with a given (future) published_at keeps it', async (t) => {
  const scheduled = { ...draft, status: 'published' as const, published_at: '2027-01-01 00:00:00' };
  spec
    .given([])
    .when({ type: 'CreateBlogPost', data: { id: 7, fields: scheduled, now: NOW } })
    .then(t, [
      { type: 'BlogPostCreated', data: { id: 7, fields: scheduled } },
      { type: 'BlogPostPublished', data: { id: 7, published_at: '2027-01-01 00:00:00' } },
    ]);
});

t.test('create refuses an existing post and invalid fields', async (t) => {
  spec
    .given([created])
    .when({ type: 'CreateBlogPost', data: { id: 7, fields: draft, now: NOW } })
    .thenThrows(t, ConflictError);
  const bad = (fields: Partial<BlogPostFields>) =>
    spec.given([]).when({ type: 'CreateBlogPost', data: { id: 7, fields: { ...draft, ...fields }, now: NOW } });
  bad({ status: 'archived' as BlogPostFields['status'] }).thenThrows(t, ValidationError, 'unknown status');
  bad({ title: '  ' }).thenThrows(t, ValidationError, 'empty title');
  bad({ slug: 'not a slug' }).thenThrows(t, ValidationError, 'slug with spaces');
  bad({ published_at: '2026-13-45 99:00:00' }).thenThrows(t, ValidationError, 'impossible date');
});

t.test('update: only present fields change; tags and site_ids replace the lists', async (t) => {
  spec
    .given([created])
    .when({ type: 'UpdateBlogPost', data: { patch: { title: 'Renamed', tags: ['history'], site_ids: [] }, now: NOW } })
    .then(t, [
      {
        type: 'BlogPostUpdated',
        data: { id: 7, fields: { ...draft, title: 'Renamed', tags: ['history'], site_ids: [] } },
      },
    ]);
});

t.test('update: status published without published_at publishes now', async (t) => {
  spec
    .given([created])
    .when({ type: 'UpdateBlogPost', data: { patch: { status: 'published' }, now: NOW } })
    .then(t, [
      { type: 'BlogPostUpdated', data: { id: 7, fields: { ...draft, status: 'published', published_at: NOW } } },
      { type: 'BlogPostPublished', data: { id: 7, published_at: NOW } },
    ]);
  const withDate = { ...draft, published_at: '2020-01-01 00:00:00' };
  spec
    .given([{ type: 'BlogPostCreated', data: { id: 7, fields: withDate } }])
    .when({ type: 'UpdateBlogPost', data: { patch: { status: 'published' }, now: NOW } })
    .then(
      t,
      [
        { type: 'BlogPostUpdated', data: { id: 7, fields: { ...withDate, status: 'published', published_at: NOW } } },
        { type: 'BlogPostPublished', data: { id: 7, published_at: NOW } },
      ],
      'a draft date is replaced by now when the post is published without one',
    );
});

t.test('update: status published with published_at uses it; an already published post keeps its time', async (t) => {
  spec
    .given([created])
    .when({
      type: 'UpdateBlogPost',
      data: { patch: { status: 'published', published_at: '2026-02-02 02:02:02' }, now: NOW },
    })
    .then(t, [
      {
        type: 'BlogPostUpdated',
        data: { id: 7, fields: { ...draft, status: 'published', published_at: '2026-02-02 02:02:02' } },
      },
      { type: 'BlogPostPublished', data: { id: 7, published_at: '2026-02-02 02:02:02' } },
    ]);
  const published = { ...draft, status: 'published' as const, published_at: '2026-01-01 00:00:00' };
  spec
    .given([{ type: 'BlogPostCreated', data: { id: 7, fields: published } }])
    .when({ type: 'UpdateBlogPost', data: { patch: { status: 'published', title: 'Again' }, now: NOW } })
    .then(t, [{ type: 'BlogPostUpdated', data: { id: 7, fields: { ...published, title: 'Again' } } }]);
});

t.test('update refuses a missing or deleted post and invalid results', async (t) => {
  spec
    .given([])
    .when({ type: 'UpdateBlogPost', data: { patch: { title: 'x' }, now: NOW } })
    .thenThrows(t, NotFoundError);
  spec
    .given([created, { type: 'BlogPostDeleted', data: { id: 7 } }])
    .when({ type: 'UpdateBlogPost', data: { patch: { title: 'x' }, now: NOW } })
    .thenThrows(t, NotFoundError);
  spec
    .given([created])
    .when({ type: 'UpdateBlogPost', data: { patch: { title: '' }, now: NOW } })
    .thenThrows(t, ValidationError);
});

t.test('delete removes the post once', async (t) => {
  spec
    .given([created])
    .when({ type: 'DeleteBlogPost', data: {} })
    .then(t, [{ type: 'BlogPostDeleted', data: { id: 7 } }]);
  spec
    .given([created, { type: 'BlogPostDeleted', data: { id: 7 } }])
    .when({ type: 'DeleteBlogPost', data: {} })
    .thenThrows(t, NotFoundError);
  spec.given([]).when({ type: 'DeleteBlogPost', data: {} }).thenThrows(t, NotFoundError);
});

t.test('a deleted category tells each post filed in it', async (t) => {
  const categoryDeleted = (categoryId: number) => ({
    type: 'CategoryDeleted' as const,
    data: { id: 7, category_id: categoryId, now: NOW },
  });
  spec
    .given([created])
    .when(categoryDeleted(1))
    .then(
      t,
      [{ type: 'BlogPostUpdated', data: { id: 7, fields: { ...draft, category_id: null } } }],
      'a post in it is uncategorised',
    );
  spec
    .given([])
    .when(categoryDeleted(1))
    .then(t, [{ type: 'BlogPostWithdrawn', data: { id: 7, category_id: 1 } }], 'a post not written yet is withdrawn');
  spec
    .given([created])
    .when(categoryDeleted(2))
    .then(
      t,
      [{ type: 'BlogPostDetached', data: { id: 7, category_id: 2 } }],
      'a post in another category only moves its stream on',
    );
  spec
    .given([created, { type: 'BlogPostDeleted', data: { id: 7 } }])
    .when(categoryDeleted(1))
    .then(t, []);
  const withdrawn: BlogPostEvent = { type: 'BlogPostWithdrawn', data: { id: 7, category_id: 1 } };
  spec
    .given([withdrawn])
    .when({ type: 'CreateBlogPost', data: { id: 7, fields: draft, now: NOW } })
    .thenThrows(t, ValidationError, 'its create is refused: the category must exist');
  spec
    .given([withdrawn])
    .when({ type: 'UpdateBlogPost', data: { patch: { title: 'x' }, now: NOW } })
    .thenThrows(t, NotFoundError);
  spec.given([withdrawn]).when(categoryDeleted(1)).then(t, [], 'a withdrawn post: nothing');
  t.equal(foldEvents(blogPostDecider, [withdrawn]).status, 'withdrawn');
  t.throws(
    () =>
      blogPostDecider.decide(
        { type: 'CreateBlogPost', data: { id: 7, fields: draft, now: NOW } },
        foldEvents(blogPostDecider, [withdrawn]),
      ),
    { message: 'Blog category 1 does not exist.' },
  );
});

t.test("evolve: a deleted post keeps its last fields; the others' events leave the state as it was", async (t) => {
  const state = foldEvents(blogPostDecider, [created, { type: 'BlogPostDeleted', data: { id: 7 } }]);
  t.same(state, { status: 'deleted', id: 7, fields: draft }, 'its handler releases their keys');
  const live = foldEvents(blogPostDecider, [created]);
  t.equal(blogPostDecider.evolve(live, { type: 'BlogPostDetached', data: { id: 7, category_id: 2 } }), live);
  t.equal(blogPostDecider.evolve(live, { type: 'BlogPostPublished', data: { id: 7, published_at: NOW } }), live);
});

t.test("the types are the post's own: a switch over its commands is exhaustive", async (t) => {
  const describe = (command: BlogPostCommand): string => {
    switch (command.type) {
      case 'CreateBlogPost':
        return command.data.fields.title;
      case 'UpdateBlogPost':
        return command.data.now;
      case 'DeleteBlogPost':
        return 'delete';
      case 'CategoryDeleted':
        return String(command.data.category_id);
      default: {
        const _exhaustive: never = command;
        return _exhaustive;
      }
    }
  };
  t.equal(describe({ type: 'CategoryDeleted', data: { id: 7, category_id: 3, now: NOW } }), '3');
  // @ts-expect-error a name the post does not use is no command of it
  const unknown: BlogPostCommand = { type: 'Create', data: { id: 7, fields: draft, now: NOW } };
  // @ts-expect-error a post's created event nests its fields
  const flat: BlogPostEvent = { type: 'BlogPostCreated', data: { id: 7, ...draft } };
  t.ok(unknown && flat);
});
