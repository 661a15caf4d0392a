import t from 'tap';
import type { Static } from '@sinclair/typebox';
import { jsonLd, type JsonLdBody } from '../../routes/json-ld.js';
import {
  BlogCategorySchema,
  BlogCommentSchema,
  BlogPostSchema,
  BlogTagSchema,
  LegacyPostSchema,
  representCategory,
  representComment,
  representLegacyPost,
  representPostIn,
  representTag,
  type BlogPost,
  type BlogTag,
  type PostContext,
} from '../../routes/blog/representations.js';
import type { BlogCategoryDoc, BlogCommentDoc, BlogPostDoc, BlogTagDoc } from '../../contracts/blog/documents.js';
import { representAsset, representFolder, representUsage, type Asset } from '../../routes/assets/representation.js';
import { AssetSchema, FolderSchema, UsageSchema } from '../../routes/assets/schemas.js';
import type { AssetDoc } from '../../contracts/assets/documents.js';

/*
 * Replies are typed (issue 49): a representation returns the Static type of the response schema
 * its routes answer with, so a field the schema declares and the representation does not
 * produce, or one it produces and the schema does not declare, fails `tsc` (which checks test/
 * too: each @ts-expect-error below is itself an error the day the mistake it marks compiles).
 */

/** True only when A and B are the same type. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const exact: [
  Same<ReturnType<typeof representPostIn>, Static<typeof BlogPostSchema>>,
  Same<ReturnType<typeof representCategory>, Static<typeof BlogCategorySchema>>,
  Same<ReturnType<typeof representTag>, Static<typeof BlogTagSchema>>,
  Same<ReturnType<typeof representComment>, Static<typeof BlogCommentSchema>>,
  Same<ReturnType<typeof representLegacyPost>, Static<typeof LegacyPostSchema>>,
  Same<ReturnType<typeof representAsset>, Static<typeof AssetSchema>>,
  Same<ReturnType<typeof representFolder>, Static<typeof FolderSchema>>,
  Same<ReturnType<typeof representUsage>, Static<typeof UsageSchema>>,
] = [true, true, true, true, true, true, true, true];

const BASE = 'http://test.local';
const AT = '2026-01-02T03:04:05.000Z';
const post: BlogPostDoc = {
  _id: 1,
  id: 1,
  version: 2,
  title: 'Hello',
  slug: 'hello',
  excerpt: '',
  content: '<p>x</p>',
  status: 'published',
  author_id: 1,
  category_id: 1,
  featured_image_asset_id: null,
  featured_image_url: null,
  published_at: '2026-01-02 03:04:05',
  tags: ['maps'],
  site_ids: [1],
  created_at: AT,
  updated_at: AT,
  sort_time: '2026-01-02 03:04:05',
  tag_refs: [{ id: 1, name: 'maps', slug: 'maps' }],
  tag_slugs: ['maps'],
};
const category: BlogCategoryDoc = {
  _id: 1,
  id: 1,
  name: 'News',
  slug: 'news',
  description: '',
  name_sort: 'news',
  created_at: AT,
  updated_at: AT,
};
const context: PostContext = { authorName: 'Ada', category };

/** A response schema with one field more: the post's representation does not produce it. */
type WithReadingTime = BlogPost & { 'o:reading_time': number };
export function representWithReadingTime(): WithReadingTime {
  // @ts-expect-error 'o:reading_time' is declared and not produced.
  return representPostIn(BASE, post, context);
}

/** The way every JSON-LD representation is written: its body literal checked against the schema's type. */
export function tagMissingAField(): BlogTag {
  // @ts-expect-error 'o:slug' is declared and not produced.
  return jsonLd<JsonLdBody<BlogTag>>(BASE, 'o:BlogTag', 'blog_tags', 1, { 'o:name': 'maps' });
}
export function tagWithAnUndeclaredField(): BlogTag {
  return jsonLd<JsonLdBody<BlogTag>>(BASE, 'o:BlogTag', 'blog_tags', 1, {
    'o:name': 'maps',
    'o:slug': 'maps',
    // @ts-expect-error 'o:color' is produced and not declared.
    'o:color': 'red',
  });
}

const asset: AssetDoc = {
  _id: 1,
  id: 1,
  stored_name: 'a1',
  filename: 'map.png',
  extension: 'png',
  mime_type: 'image/png',
  size: 3,
  sha256: 'abc',
  title: 'Map',
  title_sort: 'map',
  alt: '',
  folders: [],
  created_at: AT,
  updated_at: AT,
};

/** A nested object of a plain representation is checked the same way. */
type WithLicence = Omit<Asset, 'metadata'> & { metadata: Asset['metadata'] & { licence: string } };
export function assetWithLicence(): WithLicence {
  // @ts-expect-error 'licence' is declared in metadata and not produced.
  return representAsset(asset, BASE);
}

const keys = (value: object) => Object.keys(value).sort();
const schemaKeys = (schema: { properties: object }) => keys(schema.properties);

t.test('the blog and asset representations are typed by their response schemas', async (t) => {
  t.same(exact, [true, true, true, true, true, true, true, true], 'each returns its schema type (checked by tsc)');
});

t.test('each blog representation produces the keys of its response schema', async (t) => {
  const tag: BlogTagDoc = { _id: 1, id: 1, name: 'maps', slug: 'maps', name_sort: 'maps' };
  const comment: BlogCommentDoc = {
    _id: 1,
    id: 1,
    post_id: 1,
    author_name: 'Bo',
    author_email: 'bo@example.org',
    body: 'Nice',
    status: 'approved',
    posted_at: AT,
    updated_at: AT,
  };
  t.same(keys(representPostIn(BASE, post, context)), schemaKeys(BlogPostSchema), 'post');
  t.same(keys(representCategory(BASE, category)), schemaKeys(BlogCategorySchema), 'category');
  t.same(keys(representTag(BASE, tag)), schemaKeys(BlogTagSchema), 'tag');
  t.same(keys(representComment(BASE, comment, true)), schemaKeys(BlogCommentSchema), 'comment, for an Editor');
  t.same(
    keys(representComment(BASE, comment, false)),
    schemaKeys(BlogCommentSchema).filter((key) => key !== 'o:author_email'),
    'comment, below Editor: o:author_email, the one optional key, left out',
  );
  t.same(keys(representLegacyPost(post)), schemaKeys(LegacyPostSchema), 'legacy post');
});

t.test('each asset library representation produces the keys of its response schema', async (t) => {
  const represented = representAsset(asset, BASE);
  t.same(keys(represented), schemaKeys(AssetSchema), 'asset');
  t.same(keys(represented.metadata), schemaKeys(AssetSchema.properties.metadata), 'its metadata');
  const child = { id: 2, version: 1, title: 'B', slug: 'b', parent_id: 1, asset_count: 0, children: [] };
  const folder = representFolder({
    id: 1,
    version: 3,
    title: 'A',
    slug: 'a',
    parent_id: null,
    asset_count: 1,
    children: [child],
  });
  t.same(keys(folder), schemaKeys(FolderSchema), 'folder');
  t.same(
    folder.children,
    [{ id: 2, title: 'B', slug: 'b', parent_id: 1, asset_count: 0, children: [] }],
    'its subfolders, in the same shape (no version)',
  );
  const usage = { _id: 1, id: 1, asset_id: 1, context_type: 'page', context_id: null, user_id: 1, created_at: AT };
  t.same(keys(representUsage(usage)), schemaKeys(UsageSchema), 'usage');
});
