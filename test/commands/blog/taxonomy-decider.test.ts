import t from 'tap';
import { blogCategoryDecider, type BlogCategoryCommand } from '../../../commands/blog/category-decider.js';
import type { BlogCategoryEvent, BlogSettingsChanged, BlogTagEvent } from '../../../contracts/blog/events.js';
import { blogSettingsDecider, type ChangeBlogSettings } from '../../../commands/blog/settings-decider.js';
import { blogTagDecider, type BlogTagCommand } from '../../../commands/blog/tag-decider.js';
import { ConflictError, NotFoundError, ValidationError } from '../../../infra/errors.js';
import { deciderSpec } from '../../decider-spec.js';

const categories = deciderSpec<
  ReturnType<typeof blogCategoryDecider.initialState>,
  BlogCategoryCommand,
  BlogCategoryEvent
>(blogCategoryDecider);
const tags = deciderSpec<ReturnType<typeof blogTagDecider.initialState>, BlogTagCommand, BlogTagEvent>(blogTagDecider);
const settings = deciderSpec<
  ReturnType<typeof blogSettingsDecider.initialState>,
  ChangeBlogSettings,
  BlogSettingsChanged
>(blogSettingsDecider);

const news = { name: 'News', slug: 'news', description: '' };
const created: BlogCategoryEvent = { type: 'BlogCategoryCreated', data: { id: 1, fields: news } };

t.test('category create, update (only present fields), delete', async (t) => {
  categories
    .given([])
    .when({ type: 'CreateBlogCategory', data: { id: 1, fields: news } })
    .then(t, [created]);
  categories
    .given([created])
    .when({ type: 'CreateBlogCategory', data: { id: 1, fields: news } })
    .thenThrows(t, ConflictError);
  categories
    .given([])
    .when({ type: 'CreateBlogCategory', data: { id: 1, fields: { ...news, name: ' ' } } })
    .thenThrows(t, ValidationError);
  categories
    .given([created])
    .when({ type: 'UpdateBlogCategory', data: { patch: { description: 'All the news' } } })
    .then(t, [{ type: 'BlogCategoryUpdated', data: { id: 1, fields: { ...news, description: 'All the news' } } }]);
  categories
    .given([])
    .when({ type: 'UpdateBlogCategory', data: { patch: { name: 'x' } } })
    .thenThrows(t, NotFoundError);
  categories
    .given([created])
    .when({ type: 'DeleteBlogCategory', data: {} })
    .then(t, [{ type: 'BlogCategoryDeleted', data: { id: 1 } }]);
  categories
    .given([created, { type: 'BlogCategoryDeleted', data: { id: 1 } }])
    .when({ type: 'DeleteBlogCategory', data: {} })
    .thenThrows(t, NotFoundError);
  const state = blogCategoryDecider.evolve(blogCategoryDecider.initialState(), created);
  t.throws(() => blogCategoryDecider.decide({ type: 'CreateBlogCategory', data: { id: 1, fields: news } }, state), {
    message: 'Blog category 1 already exists.',
  });
  t.throws(
    () => blogCategoryDecider.decide({ type: 'DeleteBlogCategory', data: {} }, blogCategoryDecider.initialState()),
    {
      message: 'Blog category not found.',
    },
  );
  categories
    .given([created])
    .when({ type: 'UpdateBlogCategory', data: { patch: { name: 'Notices', slug: undefined } } })
    .then(
      t,
      [{ type: 'BlogCategoryUpdated', data: { id: 1, fields: { ...news, name: 'Notices' } } }],
      'a key given as undefined is left as it was',
    );
  categories
    .given([created])
    .when({ type: 'UpdateBlogCategory', data: { patch: { slug: 'not a slug' } } })
    .thenThrows(t, ValidationError);
  categories
    .given([created, { type: 'BlogCategoryDeleted', data: { id: 1 } }])
    .when({ type: 'UpdateBlogCategory', data: { patch: { name: 'x' } } })
    .thenThrows(t, NotFoundError);
  t.same(
    blogCategoryDecider.evolve(state, { type: 'BlogCategoryDeleted', data: { id: 1 } }),
    { status: 'deleted', id: 1, fields: news },
    'a deleted category keeps its last fields (its handler releases their keys)',
  );
});

t.test('tags are created once, with a valid slug', async (t) => {
  const tag: BlogTagEvent = { type: 'BlogTagCreated', data: { id: 4, name: 'Maps', slug: 'maps' } };
  tags
    .given([])
    .when({ type: 'CreateBlogTag', data: { id: 4, name: 'Maps', slug: 'maps' } })
    .then(t, [tag]);
  tags
    .given([tag])
    .when({ type: 'CreateBlogTag', data: { id: 4, name: 'Maps', slug: 'maps' } })
    .thenThrows(t, ConflictError);
  tags
    .given([])
    .when({ type: 'CreateBlogTag', data: { id: 4, name: '', slug: 'x' } })
    .thenThrows(t, ValidationError);
});

t.test('settings: comments are enabled until changed', async (t) => {
  t.same(blogSettingsDecider.initialState(), { comments_enabled: true });
  settings
    .given([])
    .when({ type: 'ChangeBlogSettings', data: { comments_enabled: false } })
    .then(t, [{ type: 'BlogSettingsChanged', data: { comments_enabled: false } }]);
});
