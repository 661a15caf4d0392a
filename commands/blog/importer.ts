import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import {
  duplicateIdProblems,
  fixtureObject,
  fixtureSection,
  schemaProblems,
  type Fixture,
  type FixtureImporter,
  type FixtureProblem,
} from '../fixture.js';
import type { ModuleRuntime } from '../module-runtime.js';
import { ValidationError } from '../../infra/errors.js';
import { creatable, fieldsOf, optional, withoutDefaults } from '../../infra/schema/record-fields.js';
import { slugify } from '../../infra/text/slug.js';
import { findCategoryBySlug } from '../../queries/blog/taxonomy.js';
import { postIdBySlug } from '../../queries/blog/posts.js';
import { userStream } from '../../contracts/users/events.js';
import { siteStream } from '../platform/kinds.js';
import { createCategory } from './category-handlers.js';
import { importComment } from './comment-handlers.js';
import { blogCategoryStream, blogCommentStream, blogPostStream } from '../../contracts/blog/events.js';
import {
  BlogCategoryFields,
  BlogCommentFields,
  BlogPostFields,
  BlogSettingsFields,
} from '../../contracts/blog/fields.js';
import { createPost } from './post-handlers.js';
import { checkCategoryFields, checkCommentFields, checkPostFields } from './rules.js';
import { changeBlogSettings } from './settings-handlers.js';
import { normaliseTimestamp } from './time.js';

const Id = Type.Integer({ minimum: 1 });
const FixtureId = { id: Type.Optional(Id) };

/** Each record as a create takes it (its own id kept), from its fields (fields.ts). */
const { name: categoryName, ...categoryProperties } = BlogCategoryFields.properties;
const CategorySchema = fixtureObject({ ...FixtureId, name: categoryName, ...optional(categoryProperties) });
const { title: postTitle, ...postProperties } = BlogPostFields.properties;
const PostSchema = fixtureObject({ ...FixtureId, title: postTitle, ...optional(postProperties) });
const CommentSchema = fixtureObject({ ...FixtureId, ...creatable(BlogCommentFields.properties) });
const BlogSchema = fixtureObject({
  settings: Type.Optional(fixtureObject(withoutDefaults(BlogSettingsFields.properties))),
  categories: Type.Optional(Type.Array(CategorySchema)),
  posts: Type.Optional(Type.Array(PostSchema)),
  comments: Type.Optional(Type.Array(CommentSchema)),
});

type BlogInput = Static<typeof BlogSchema>;
type PostInputRow = Static<typeof PostSchema>;

/** The blog section, checked against its schema (fixtureSection); absent or not matching: empty. */
function blogOf(fixture: Fixture): BlogInput {
  return fixtureSection(fixture, 'blog', BlogSchema) ?? {};
}

const WithId = Type.Object({ id: Type.Number() });

/** The ids of another module's list section, whether or not its own importer finds it valid (that one reports it). */
function idsOf(fixture: Fixture, key: string): Set<number> {
  const list = fixture[key];
  return new Set(
    Array.isArray(list) ? list.flatMap((entry: unknown) => (Value.Check(WithId, entry) ? [entry.id] : [])) : [],
  );
}

/** Runs a rule check and reports its refusal at `path.<field>`. */
function ruleProblem(path: string, check: () => void): FixtureProblem[] {
  try {
    check();
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const field = Object.keys(error.fields ?? {})[0];
    return [{ path: field ? `${path}.${field}` : path, message: error.message }];
  }
}

function postDraft(post: PostInputRow): BlogPostFields {
  return fieldsOf(BlogPostFields, {
    ...post,
    slug: post.slug?.trim() || slugify(post.title),
    published_at: post.published_at ? (normaliseTimestamp(post.published_at) ?? post.published_at) : null,
  });
}

async function exists(runtime: ModuleRuntime, stream: string): Promise<boolean> {
  return (await runtime.eventStore.readLastEvent(stream)) !== null;
}

function idSet(list: { id?: number }[]): Set<number> {
  return new Set(list.map((e) => e.id).filter((id): id is number => id !== undefined));
}

async function validateBlog(fixture: Fixture, runtime: ModuleRuntime): Promise<FixtureProblem[]> {
  const blog = blogOf(fixture);
  const categories = blog.categories ?? [];
  const posts = blog.posts ?? [];
  const comments = blog.comments ?? [];
  const problems: FixtureProblem[] = [
    ...duplicateIdProblems(categories, '$.blog.categories'),
    ...duplicateIdProblems(posts, '$.blog.posts'),
    ...duplicateIdProblems(comments, '$.blog.comments'),
  ];
  const userIds = idsOf(fixture, 'users');
  const siteIds = idsOf(fixture, 'sites');
  const categoryIds = idSet(categories);
  const postIds = idSet(posts);

  const categorySlugs = new Set<string>();
  for (const [i, category] of categories.entries()) {
    const path = `$.blog.categories[${i}]`;
    const slug = category.slug?.trim();
    problems.push(
      ...ruleProblem(path, () =>
        checkCategoryFields(fieldsOf(BlogCategoryFields, { ...category, slug: slug || slugify(category.name) })),
      ),
    );
    if (category.id !== undefined && (await exists(runtime, blogCategoryStream(category.id)))) {
      problems.push({ path: `${path}.id`, message: `Blog category ${category.id} already exists.` });
    }
    if (slug) {
      if (categorySlugs.has(slug) || (await findCategoryBySlug(runtime.documents, slug)))
        problems.push({ path: `${path}.slug`, message: 'Duplicate category slug.' });
      categorySlugs.add(slug);
    }
  }

  const postSlugs = new Set<string>();
  for (const [i, post] of posts.entries()) {
    const path = `$.blog.posts[${i}]`;
    if (post.published_at && normaliseTimestamp(post.published_at) === null) {
      problems.push({ path: `${path}.published_at`, message: 'Must be a date and time as YYYY-MM-DD HH:MM:SS.' });
      continue;
    }
    problems.push(...ruleProblem(path, () => checkPostFields(postDraft(post))));
    if (post.id !== undefined && (await exists(runtime, blogPostStream(post.id)))) {
      problems.push({ path: `${path}.id`, message: `Blog post ${post.id} already exists.` });
    }
    if (
      post.author_id != null &&
      !userIds.has(post.author_id) &&
      !(await exists(runtime, userStream(post.author_id)))
    ) {
      problems.push({ path: `${path}.author_id`, message: `User ${post.author_id} does not exist.` });
    }
    if (
      post.category_id != null &&
      !categoryIds.has(post.category_id) &&
      !(await exists(runtime, blogCategoryStream(post.category_id)))
    ) {
      problems.push({ path: `${path}.category_id`, message: `Blog category ${post.category_id} does not exist.` });
    }
    for (const [j, siteId] of (post.site_ids ?? []).entries()) {
      if (!siteIds.has(siteId) && !(await exists(runtime, siteStream(siteId)))) {
        problems.push({ path: `${path}.site_ids[${j}]`, message: `Site ${siteId} does not exist.` });
      }
    }
    const slug = post.slug?.trim();
    if (slug) {
      if (postSlugs.has(slug) || (await postIdBySlug(runtime.documents, slug)) !== null)
        problems.push({ path: `${path}.slug`, message: 'Duplicate post slug.' });
      postSlugs.add(slug);
    }
  }

  for (const [i, comment] of comments.entries()) {
    const path = `$.blog.comments[${i}]`;
    problems.push(...ruleProblem(path, () => checkCommentFields(fieldsOf(BlogCommentFields, comment))));
    if (comment.id !== undefined && (await exists(runtime, blogCommentStream(comment.id)))) {
      problems.push({ path: `${path}.id`, message: `Blog comment ${comment.id} already exists.` });
    }
    if (!postIds.has(comment.post_id) && !(await exists(runtime, blogPostStream(comment.post_id)))) {
      problems.push({ path: `${path}.post_id`, message: `Blog post ${comment.post_id} does not exist.` });
    }
  }
  return problems;
}

/** The blog part of the fixture (CONTRACT.md section 4): settings, categories, posts, comments. */
export const blogImporter: FixtureImporter = {
  order: 70,
  sections: { blog: BlogSchema },
  async validate(fixture, runtime) {
    if (fixture.blog === undefined) return [];
    const problems = schemaProblems(BlogSchema, fixture.blog, '$.blog');
    if (problems.length) return problems;
    return validateBlog(fixture, runtime);
  },
  count(fixture) {
    const blog = blogOf(fixture);
    return (
      (blog.settings ? 1 : 0) +
      (blog.categories?.length ?? 0) +
      (blog.posts?.length ?? 0) +
      (blog.comments?.length ?? 0)
    );
  },
  async import(fixture, runtime, { progress }) {
    if (fixture.blog === undefined) return;
    const blog = blogOf(fixture);
    const ctx = runtime.commandContext(null);
    if (blog.settings) {
      await changeBlogSettings(ctx, fieldsOf(BlogSettingsFields, blog.settings));
      progress.tick();
    }
    for (const category of blog.categories ?? []) {
      await createCategory(ctx, category, category.id);
      progress.tick();
    }
    for (const post of blog.posts ?? []) {
      const { id, author_id, ...input } = post;
      await createPost(ctx, { authorId: author_id ?? null, input, givenId: id });
      progress.tick();
    }
    for (const comment of blog.comments ?? []) {
      await importComment(ctx, fieldsOf(BlogCommentFields, comment), comment.id);
      progress.tick();
    }
  },
};
