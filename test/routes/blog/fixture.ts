import { FixedClock } from '../../../infra/clock/port.js';
import { blogModule } from '../../../app/modules/blog.js';
import { usersModule } from '../../../app/modules/core.js';
import { platformModule } from '../../../app/modules/platform.js';
import { buildTestApp, keyFor, ROLE_USERS, type RoleName, type TestContext } from '../../helper.js';

/** The blog's HTTP tests run at a fixed time so scheduled posts stay scheduled. */
export const NOW = new Date('2026-06-01T12:00:00Z');
export const NOW_TEXT = '2026-06-01 12:00:00';

export const EDITORS: RoleName[] = ['global_admin', 'site_admin', 'editor'];
export const BELOW_EDITOR: RoleName[] = ['reviewer', 'author', 'researcher'];
export type Caller = RoleName | 'anonymous';
export const CALLERS: Caller[] = [...EDITORS, ...BELOW_EDITOR, 'anonymous'];

export function isEditor(caller: Caller): boolean {
  return (EDITORS as Caller[]).includes(caller);
}

/** `?key_identity=...&key_credential=...` for a role, '' for anonymous; joined with `sep`. */
export function auth(caller: Caller, sep = '?'): string {
  return caller === 'anonymous' ? '' : `${sep}${keyFor(caller)}`;
}

export const blogFixture = {
  users: ROLE_USERS,
  sites: [
    { id: 1, slug: 'main', title: 'Main' },
    { id: 2, slug: 'branch', title: 'Branch' },
  ],
  blog: {
    settings: { comments_enabled: true },
    categories: [
      { id: 1, name: 'News', slug: 'news', description: 'What is new' },
      { id: 2, name: 'events', slug: 'events', description: '' },
      { id: 3, name: 'Archive', description: '' },
    ],
    posts: [
      {
        id: 1,
        title: 'Hello world',
        slug: 'hello',
        excerpt: '<em>Hi</em>',
        content: '<p>First post</p>',
        status: 'published',
        author_id: 1,
        category_id: 1,
        tags: ['maps'],
        site_ids: [1],
        published_at: '2026-01-02 03:04:05',
      },
      {
        id: 2,
        title: 'Draft idea',
        slug: 'draft-idea',
        excerpt: '',
        content: '<p>Not yet</p>',
        status: 'draft',
        author_id: 3,
        category_id: 1,
        tags: [],
        site_ids: [1],
        published_at: null,
      },
      {
        id: 3,
        title: 'Pending review',
        excerpt: '',
        content: '<p>Waiting</p>',
        status: 'pending',
        author_id: 5,
        category_id: 2,
        tags: [],
        site_ids: [],
      },
      {
        id: 4,
        title: 'Future event',
        slug: 'future',
        excerpt: '',
        content: '<p>Soon</p>',
        status: 'published',
        author_id: 1,
        category_id: 2,
        tags: ['history'],
        site_ids: [1],
        published_at: '2026-12-01 09:00:00',
      },
      {
        id: 5,
        title: 'Lighthouse history',
        slug: 'lighthouse',
        excerpt: 'short',
        content: '<p>The old LIGHTHOUSE keeper</p>',
        status: 'published',
        author_id: 5,
        category_id: 2,
        tags: ['maps', 'History'],
        site_ids: [2],
        published_at: '2026-03-01 10:00:00',
      },
      {
        id: 6,
        title: 'Old news',
        slug: 'old-news',
        excerpt: 'Find the needle here',
        content: '',
        status: 'published',
        author_id: 3,
        category_id: null,
        tags: [],
        site_ids: [1, 2],
        published_at: '2025-05-05 05:05:05',
      },
    ],
    comments: [
      { id: 1, post_id: 1, author_name: 'Bo', author_email: 'bo@example.org', body: 'Nice', status: 'approved' },
      { id: 2, post_id: 1, author_name: 'Cy', author_email: 'cy@example.org', body: 'Waiting', status: 'pending' },
      { id: 3, post_id: 5, author_name: 'Spammer', author_email: 'spam@example.org', body: 'Buy now', status: 'spam' },
      {
        id: 4,
        post_id: 5,
        author_name: 'Di',
        author_email: 'di@example.org',
        body: '<script>alert(1)</script> & more',
        status: 'approved',
      },
    ],
  },
};

/** Ids in list order for an editor: scheduled first, then drafts by creation time (now), then the rest. */
export const ALL_POSTS_NEWEST_FIRST = [4, 3, 2, 5, 1, 6];
/** What the public site shows, newest first. */
export const PUBLIC_POSTS = [5, 1, 6];

/** The app with only the modules the blog needs, at the fixed time, with the blog fixture. */
export function buildBlogApp(t: TestContext, fixture: object = blogFixture) {
  return buildTestApp(t, { modules: [usersModule, platformModule, blogModule], clock: new FixedClock(NOW), fixture });
}

export function ids(body: string): number[] {
  return (JSON.parse(body) as { 'o:id': number }[]).map((r) => r['o:id']);
}
