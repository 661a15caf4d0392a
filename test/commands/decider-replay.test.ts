import { readFileSync, writeFileSync } from 'node:fs';
import t from 'tap';
import { assetDecider, type AssetCommand } from '../../commands/assets/asset-decider.js';
import type { AssetEvent, AssetFile, AssetFolderEvent } from '../../contracts/assets/events.js';
import { assetFolderDecider, type AssetFolderCommand } from '../../commands/assets/folder-decider.js';
import { backupDecider, type BackupCommand } from '../../commands/backups/decider.js';
import type { BackupEvent } from '../../contracts/backups/events.js';
import { blogCategoryDecider, type BlogCategoryCommand } from '../../commands/blog/category-decider.js';
import { blogCommentDecider, type BlogCommentCommand } from '../../commands/blog/comment-decider.js';
import type {
  BlogCategoryEvent,
  BlogCommentEvent,
  BlogPostEvent,
  BlogPostFields,
  BlogSettingsChanged,
  BlogTagEvent,
} from '../../contracts/blog/events.js';
import { blogPostDecider, type BlogPostCommand } from '../../commands/blog/post-decider.js';
import type { Decider, DomainCommand } from '../../commands/decider.js';
import type { DomainEvent } from '../../contracts/domain-event.js';
import { versionedSitePageDecider, type SitePageCommand } from '../../commands/page-versioning/decider.js';
import type { SitePageEvent } from '../../contracts/page-versioning/events.js';
import type { ItemFields, SitePageFields } from '../../contracts/platform/fields.js';
import { itemDecider, siteDecider, sitePageDecider } from '../../commands/platform/kinds.js';
import type { ResourceCommand } from '../../commands/platform/resource-decider.js';
import type { ResourceEvent } from '../../contracts/platform/events.js';
import { blogSettingsDecider, type ChangeBlogSettings } from '../../commands/blog/settings-decider.js';
import { blogTagDecider, type BlogTagCommand } from '../../commands/blog/tag-decider.js';
import { scheduleDecider, type ScheduleCommand } from '../../commands/backups/schedule-decider.js';
import { type ScheduleEvent } from '../../contracts/backups/schedule-events.js';
import {
  databaseDecider,
  type DatabaseCommand,
  type DatabaseEvent,
} from '../../commands/directory/database-decider.js';
import type {
  DatabaseFields,
  LibraryConfigured,
  LibraryListDefined,
  SubjectDefined,
} from '../../contracts/directory/events.js';
import { libraryDecider, type LibraryCommand } from '../../commands/directory/library-decider.js';
import { listDecider, type DefineList } from '../../commands/directory/list-decider.js';
import { subjectDecider, type DefineTerm } from '../../commands/directory/term-decider.js';
import { tokenDecider, type TokenCommand, type TokenEvent } from '../../commands/directory/token-decider.js';
import { parentDecider, type AttachChild } from '../../commands/reservations/parent-decider.js';
import {
  reservationDecider,
  type ReservationCommand,
  type ReservationEvent,
} from '../../commands/reservations/reservation-decider.js';
import { userDecider, type UserCommand } from '../../commands/users/decider.js';
import type { UserEvent } from '../../contracts/users/events.js';

/**
 * Every decider's output as main wrote it before they were rewritten as switches (issue 40): each
 * script runs its commands in turn against the state folded from what the earlier ones
 * appended, and every step's events (or refusal) and the state after it are compared, as JSON
 * text, key order included, with test/commands/decider-replay.golden.json. So a projection or a
 * stored log sees no difference. `WRITE_GOLDEN=1` writes the file anew (only from main's code).
 */
type Step<Command, Event> = { command: Command } | { appended: Event[] };

function replay<State, Command extends DomainCommand, Event extends DomainEvent>(
  decider: Decider<State, Command, Event>,
  steps: Step<Command, Event>[],
): unknown[] {
  let state = decider.initialState();
  return steps.map((step) => {
    let outcome: Record<string, unknown>;
    if ('appended' in step) {
      outcome = { appended: step.appended };
      for (const event of step.appended) state = decider.evolve(state, event);
    } else {
      try {
        const events = decider.decide(step.command, state);
        for (const event of events) state = decider.evolve(state, event);
        outcome = { command: step.command.type, events };
      } catch (error) {
        if (!(error instanceof Error)) throw error;
        const { name, message } = error;
        outcome = { command: step.command.type, refused: { name, message } };
      }
    }
    return { ...outcome, state };
  });
}

const NOW = '2026-06-01 12:00:00';
const LATER = '2026-06-02 08:00:00';
const post: BlogPostFields = {
  title: 'Hello',
  slug: 'hello',
  excerpt: '',
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
// Keys in another order than BlogPostFields, as a handler might build them: the events keep it.
const { title, ...rest } = post;
const reordered: BlogPostFields = { ...rest, title };

const posts: Step<BlogPostCommand, BlogPostEvent>[][] = [
  [
    { command: { type: 'UpdateBlogPost', data: { patch: { title: 'x' }, now: NOW } } },
    { command: { type: 'DeleteBlogPost', data: {} } },
    { command: { type: 'CreateBlogPost', data: { id: 7, fields: { ...post, title: ' ' }, now: NOW } } },
    { command: { type: 'CreateBlogPost', data: { id: 7, fields: reordered, now: NOW } } },
    { command: { type: 'CreateBlogPost', data: { id: 7, fields: post, now: NOW } } },
    { command: { type: 'UpdateBlogPost', data: { patch: { title: 'Renamed', slug: undefined, tags: [] }, now: NOW } } },
    { command: { type: 'UpdateBlogPost', data: { patch: { status: 'published' }, now: NOW } } },
    { command: { type: 'UpdateBlogPost', data: { patch: { status: 'published', title: 'Again' }, now: LATER } } },
    { command: { type: 'UpdateBlogPost', data: { patch: { status: 'draft', published_at: null }, now: LATER } } },
    {
      command: {
        type: 'UpdateBlogPost',
        data: { patch: { status: 'published', published_at: '2027-01-01 00:00:00' }, now: LATER },
      },
    },
    { command: { type: 'CategoryDeleted', data: { id: 7, category_id: 2, now: LATER } } },
    { command: { type: 'CategoryDeleted', data: { id: 7, category_id: 1, now: LATER } } },
    { command: { type: 'UpdateBlogPost', data: { patch: { category_id: 4 }, now: LATER } } },
    { command: { type: 'DeleteBlogPost', data: {} } },
    { command: { type: 'DeleteBlogPost', data: {} } },
    { command: { type: 'CategoryDeleted', data: { id: 7, category_id: 4, now: LATER } } },
    { command: { type: 'CreateBlogPost', data: { id: 7, fields: post, now: NOW } } },
  ],
  [
    { command: { type: 'CategoryDeleted', data: { id: 8, category_id: 1, now: NOW } } },
    { command: { type: 'CategoryDeleted', data: { id: 8, category_id: 1, now: NOW } } },
    { command: { type: 'CreateBlogPost', data: { id: 8, fields: post, now: NOW } } },
    { command: { type: 'UpdateBlogPost', data: { patch: { title: 'x' }, now: NOW } } },
  ],
  [
    { command: { type: 'CreateBlogPost', data: { id: 9, fields: { ...reordered, status: 'published' }, now: NOW } } },
    { command: { type: 'CategoryDeleted', data: { id: 9, category_id: 1, now: LATER } } },
  ],
  [
    {
      command: {
        type: 'CreateBlogPost',
        data: { id: 10, fields: { ...post, status: 'published', published_at: '2020-01-01 00:00:00' }, now: NOW },
      },
    },
    {
      appended: [
        { type: 'BlogPostDetached', data: { id: 10, category_id: 5 } },
        { type: 'BlogPostPublished', data: { id: 10, published_at: NOW } },
      ],
    },
    { command: { type: 'UpdateBlogPost', data: { patch: { status: 'pending' }, now: NOW } } },
  ],
];

const categories: Step<BlogCategoryCommand, BlogCategoryEvent>[][] = [
  [
    { command: { type: 'DeleteBlogCategory', data: {} } },
    { command: { type: 'UpdateBlogCategory', data: { patch: { name: 'x' } } } },
    { command: { type: 'CreateBlogCategory', data: { id: 3, fields: { name: '', slug: 'news', description: '' } } } },
    {
      command: { type: 'CreateBlogCategory', data: { id: 3, fields: { slug: 'news', name: 'News', description: '' } } },
    },
    {
      command: { type: 'CreateBlogCategory', data: { id: 3, fields: { name: 'News', slug: 'news', description: '' } } },
    },
    { command: { type: 'UpdateBlogCategory', data: { patch: { description: 'All of it', name: undefined } } } },
    { command: { type: 'UpdateBlogCategory', data: { patch: { slug: 'not a slug' } } } },
    { command: { type: 'DeleteBlogCategory', data: {} } },
    { command: { type: 'DeleteBlogCategory', data: {} } },
    { command: { type: 'UpdateBlogCategory', data: { patch: { name: 'x' } } } },
    {
      command: { type: 'CreateBlogCategory', data: { id: 3, fields: { name: 'News', slug: 'news', description: '' } } },
    },
  ],
];

const commentFields = { post_id: 1, author_name: 'Bo', author_email: 'bo@example.org', body: 'Nice' };
const comments: Step<BlogCommentCommand, BlogCommentEvent>[][] = [
  [
    { command: { type: 'ModerateBlogComment', data: { status: 'approved' } } },
    { command: { type: 'DeleteBlogComment', data: {} } },
    { command: { type: 'PostBlogComment', data: { id: 9, fields: commentFields, post: null, now: NOW } } },
    {
      command: {
        type: 'PostBlogComment',
        data: { id: 9, fields: { ...commentFields, body: ' ' }, post: null, now: NOW },
      },
    },
    {
      command: {
        type: 'PostBlogComment',
        data: { id: 9, fields: commentFields, post: { status: 'published', published_at: LATER }, now: NOW },
      },
    },
    {
      command: {
        type: 'PostBlogComment',
        data: { id: 9, fields: commentFields, post: { status: 'published', published_at: NOW }, now: NOW },
      },
    },
    {
      command: {
        type: 'PostBlogComment',
        data: { id: 9, fields: commentFields, post: { status: 'published', published_at: NOW }, now: NOW },
      },
    },
    { command: { type: 'ImportBlogComment', data: { id: 9, fields: { ...commentFields, status: 'spam' } } } },
    { command: { type: 'ModerateBlogComment', data: { status: 'pending' } } },
    { command: { type: 'ModerateBlogComment', data: { status: 'spam' } } },
    { command: { type: 'DeleteBlogComment', data: {} } },
    { command: { type: 'DeleteBlogComment', data: {} } },
    { command: { type: 'ModerateBlogComment', data: { status: 'approved' } } },
  ],
  [
    {
      command: {
        type: 'ImportBlogComment',
        data: {
          id: 10,
          fields: { body: 'Old', status: 'approved', post_id: 2, author_email: 'a@b.c', author_name: 'Al' },
        },
      },
    },
    { command: { type: 'ImportBlogComment', data: { id: 10, fields: { ...commentFields, status: 'approved' } } } },
    { command: { type: 'DeleteBlogComment', data: {} } },
  ],
];

const file: AssetFile = {
  stored_name: 'a.png',
  filename: 'map.png',
  extension: 'png',
  mime_type: 'image/png',
  size: 70,
  sha256: 'aa',
};
const assets: Step<AssetCommand, AssetEvent>[][] = [
  [
    { command: { type: 'DeleteAsset', data: {} } },
    { command: { type: 'ChangeAssetDetails', data: { title: 'x' } } },
    { command: { type: 'UploadAsset', data: { id: 7, file, title: '  ', folder_id: 3 } } },
    { command: { type: 'UploadAsset', data: { id: 7, file, title: ' Map ', folder_id: 3 } } },
    { command: { type: 'UploadAsset', data: { id: 7, file, title: 'Map', folder_id: null } } },
    { command: { type: 'ChangeAssetDetails', data: { title: ' Old map ', alt: 'A map' } } },
    { command: { type: 'RecordAssetUsage', data: { usage_id: 1, context_type: ' page ', context_id: 4 } } },
    { command: { type: 'ReplaceAssetFile', data: { file: { ...file, stored_name: 'b.png' } } } },
    { command: { type: 'MoveAssetToFolder', data: { folder_id: 5 } } },
    { command: { type: 'DeleteAsset', data: {} } },
    { command: { type: 'DeleteAsset', data: {} } },
    { command: { type: 'UploadAsset', data: { id: 7, file, title: 'Map', folder_id: null } } },
  ],
  [
    { command: { type: 'UploadAsset', data: { folder_id: null, title: 'Plan', file, id: 8 } } },
    { command: { type: 'DeleteAsset', data: {} } },
  ],
];

const folders: Step<AssetFolderCommand, AssetFolderEvent>[][] = [
  [
    { command: { type: 'DeleteAssetFolder', data: {} } },
    { command: { type: 'CreateAssetFolder', data: { id: 2, title: 'Self', slug: 'self', parent_id: 2 } } },
    { command: { type: 'CreateAssetFolder', data: { id: 2, title: ' ', slug: 'x', parent_id: null } } },
    { command: { type: 'CreateAssetFolder', data: { slug: 'maps', title: ' Maps ', parent_id: 1, id: 2 } } },
    { command: { type: 'CreateAssetFolder', data: { id: 2, title: 'Maps', slug: 'maps', parent_id: 1 } } },
    { command: { type: 'UpdateAssetFolder', data: { title: 'Charts', slug: 'charts', parent_id: 5 } } },
    { command: { type: 'DeleteAssetFolder', data: {} } },
    { command: { type: 'DeleteAssetFolder', data: {} } },
    { command: { type: 'RemoveAssetFolder', data: { id: 2 } } },
  ],
  [
    { command: { type: 'RemoveAssetFolder', data: { id: 3 } } },
    { command: { type: 'RemoveAssetFolder', data: { id: 3 } } },
    { command: { type: 'CreateAssetFolder', data: { id: 3, title: 'Late', slug: 'late', parent_id: 9 } } },
    { command: { type: 'DeleteAssetFolder', data: {} } },
  ],
  [
    { command: { type: 'CreateAssetFolder', data: { id: 4, title: 'Top', slug: 'top', parent_id: null } } },
    { command: { type: 'RemoveAssetFolder', data: { id: 4 } } },
  ],
];

const includes = {
  include_db: true,
  include_files: false,
  include_themes: true,
  include_modules: true,
  include_api: false,
};
const backupFields = {
  filename: 'backup-1.zip',
  path: '/data/backups/backup-1.zip',
  storage: 'local' as const,
  includes,
  created_by: 1,
  created_at: '2026-06-01T12:00:00.000Z',
  module_version: '1.2.3',
};
const backups: Step<BackupCommand, BackupEvent>[][] = [
  [
    { command: { type: 'CompleteBackup', data: { size: 10, checksum: 'c', event_count: 3 } } },
    { command: { type: 'DeleteBackup', data: {} } },
    { command: { type: 'RequestBackup', data: { ...backupFields, id: 1 } } },
    { command: { type: 'RequestBackup', data: { id: 1, ...backupFields } } },
    { command: { type: 'CompleteBackup', data: { size: 10, checksum: 'c', event_count: 3 } } },
    { command: { type: 'FailBackup', data: { error: 'late' } } },
    { command: { type: 'DeleteBackup', data: {} } },
    { command: { type: 'DeleteBackup', data: {} } },
  ],
  [
    { command: { type: 'RequestBackup', data: { id: 2, ...backupFields } } },
    { command: { type: 'FailBackup', data: { error: 'disk full' } } },
    { appended: [{ type: 'BackupArchiveNotRestored', data: { id: 2, reason: 'not here' } }] },
    { command: { type: 'DeleteBackup', data: {} } },
  ],
];

const page: SitePageFields = {
  site_id: 1,
  slug: 'about',
  title: 'About',
  is_public: true,
  layout: null,
  layout_data: {},
  blocks: [{ layout: 'html', data: { html: '<p>Hi</p>' } }],
};
const sitePages: Step<ResourceCommand<SitePageFields>, ResourceEvent<SitePageFields>>[][] = [
  [
    { command: { type: 'Update', data: { patch: { title: 'x' } } } },
    { command: { type: 'Delete', data: {} } },
    { command: { type: 'Create', data: { id: 5, fields: { ...page, slug: 'a b' } } } },
    { command: { type: 'Create', data: { id: 5, fields: page } } },
    { command: { type: 'Create', data: { id: 5, fields: page } } },
    { command: { type: 'Update', data: { patch: { title: 'About us', slug: undefined, blocks: [] } } } },
    { command: { type: 'Update', data: { patch: { title: 'About us' } } } },
    { command: { type: 'Update', data: { patch: { blocks: [{ layout: ' ', data: {} }] } } } },
    { command: { type: 'ParentDeleted', data: { id: 5, parent_id: 2 } } },
    { command: { type: 'ParentDeleted', data: { id: 5, parent_id: 1 } } },
    { command: { type: 'ParentDeleted', data: { id: 5, parent_id: 1 } } },
    { command: { type: 'Delete', data: {} } },
  ],
  [
    { command: { type: 'ParentDeleted', data: { id: 6, parent_id: 1 } } },
    { command: { type: 'ParentDeleted', data: { id: 6, parent_id: 1 } } },
    { command: { type: 'Create', data: { id: 6, fields: page } } },
    { command: { type: 'Update', data: { patch: { title: 'x' } } } },
  ],
  [
    { command: { type: 'Create', data: { id: 7, fields: page } } },
    { command: { type: 'Delete', data: {} } },
    { command: { type: 'Create', data: { id: 7, fields: page } } },
  ],
];
const versionedPages: Step<SitePageCommand, SitePageEvent>[][] = [
  [
    { command: { type: 'RevertSitePage', data: { target: { id: 3, saved_at: NOW, fields: page } } } },
    { command: { type: 'Create', data: { id: 5, fields: page } } },
    { command: { type: 'Update', data: { patch: { title: 'About us' } } } },
    { command: { type: 'RevertSitePage', data: { target: { id: 3, saved_at: NOW, fields: page }, summary: ' ' } } },
    { command: { type: 'Update', data: { patch: { is_public: false } } } },
    { command: { type: 'ParentDeleted', data: { id: 5, parent_id: 1 } } },
    { command: { type: 'RevertSitePage', data: { target: { id: 3, saved_at: NOW, fields: page }, summary: 'Back' } } },
  ],
];

const item: ItemFields = {
  title: 'Map',
  description: 'old',
  is_public: true,
  item_set_ids: [10],
  site_ids: [1],
  rights: null,
};
const items: Step<ResourceCommand<ItemFields>, ResourceEvent<ItemFields>>[][] = [
  [
    { command: { type: 'ParentDeleted', data: { id: 100, parent_id: 1 } } },
    { command: { type: 'Create', data: { id: 100, fields: item } } },
    { command: { type: 'Create', data: { id: 101, fields: { ...item, item_set_ids: [0] } } } },
  ],
  [
    { command: { type: 'Create', data: { id: 101, fields: item } } },
    { command: { type: 'Update', data: { patch: { item_set_ids: [10], site_ids: [1, 2], description: 'new' } } } },
    { command: { type: 'ParentDeleted', data: { id: 101, parent_id: 10 } } },
    { command: { type: 'Delete', data: {} } },
  ],
];
const sites: Step<
  ResourceCommand<{ slug: string; title: string }>,
  ResourceEvent<{ slug: string; title: string }>
>[][] = [
  [
    { command: { type: 'Create', data: { id: 1, fields: { title: 'Main', slug: 'main' } } } },
    { command: { type: 'Update', data: { patch: { slug: 'main' } } } },
    { command: { type: 'Update', data: { patch: { slug: '' } } } },
  ],
];

const tags: Step<BlogTagCommand, BlogTagEvent>[][] = [
  [
    { command: { type: 'CreateBlogTag', data: { id: 1, name: ' ', slug: 'maps' } } },
    { command: { type: 'CreateBlogTag', data: { id: 1, name: 'Maps', slug: 'not a slug' } } },
    { command: { type: 'CreateBlogTag', data: { slug: 'maps', name: 'Maps', id: 1 } } },
    { command: { type: 'CreateBlogTag', data: { id: 1, name: 'Maps', slug: 'maps' } } },
  ],
];
const blogSettings: Step<ChangeBlogSettings, BlogSettingsChanged>[][] = [
  [
    { command: { type: 'ChangeBlogSettings', data: { comments_enabled: false } } },
    { command: { type: 'ChangeBlogSettings', data: { comments_enabled: true } } },
  ],
];
const users: Step<UserCommand, UserEvent>[][] = [
  [
    { command: { type: 'CreateApiKey', data: { identity: 'ID', credentialHash: 'h', label: 'ci' } } },
    {
      command: {
        type: 'RegisterUser',
        data: { id: 1, email: 'nope', name: 'Ada', role: 'editor', passwordHash: null },
      },
    },
    {
      command: {
        type: 'RegisterUser',
        data: { id: 1, email: 'Ada@Example.org', name: ' ', role: 'editor', passwordHash: null },
      },
    },
    {
      command: {
        type: 'RegisterUser',
        data: { id: 1, email: 'Ada@Example.org', name: 'Ada', role: 'editor', passwordHash: 'x' },
      },
    },
    {
      command: {
        type: 'RegisterUser',
        data: { id: 1, email: 'ada@example.org', name: 'Ada', role: 'editor', passwordHash: 'x' },
      },
    },
    { command: { type: 'CreateApiKey', data: { identity: '', credentialHash: 'h', label: 'ci' } } },
    { command: { type: 'CreateApiKey', data: { label: 'ci', identity: 'ID', credentialHash: 'h' } } },
    { command: { type: 'CreateApiKey', data: { identity: 'ID', credentialHash: 'h', label: 'ci' } } },
    { command: { type: 'RevokeApiKey', data: { identity: 'OTHER' } } },
    { command: { type: 'RevokeApiKey', data: { identity: 'ID' } } },
    { command: { type: 'RevokeApiKey', data: { identity: 'ID' } } },
  ],
];
const HASH = 'a'.repeat(64);
const tokens: Step<TokenCommand, TokenEvent>[][] = [
  [
    { command: { type: 'RevokeToken', data: {} } },
    { command: { type: 'IssueToken', data: { id: 1, token_hash: 'short', allowed_origins: [], label: '' } } },
    { command: { type: 'IssueToken', data: { id: 1, token_hash: HASH, allowed_origins: ['ftp://x'], label: '' } } },
    {
      command: {
        type: 'IssueToken',
        data: {
          label: 'site',
          allowed_origins: ['https://Example.org/', 'https://example.org'],
          token_hash: HASH,
          id: 1,
        },
      },
    },
    { command: { type: 'IssueToken', data: { id: 1, token_hash: HASH, allowed_origins: [], label: '' } } },
    { command: { type: 'RevokeToken', data: {} } },
    { command: { type: 'RevokeToken', data: {} } },
  ],
];
const jstor: DatabaseFields = {
  name: 'JSTOR',
  description: 'Journals',
  url: 'https://www.jstor.org/',
  subjects: ['history', 'history'],
  types: ['journals'],
  access: 'subscription',
  audience: ['undergraduate'],
  featured: true,
  hidden: false,
  proxied: true,
};
const databases: Step<DatabaseCommand, DatabaseEvent>[][] = [
  [
    { command: { type: 'UpdateDatabase', data: { patch: { name: 'x' } } } },
    { command: { type: 'AddDatabase', data: { handle: 'Not a handle', fields: jstor } } },
    { command: { type: 'AddDatabase', data: { handle: 'jstor', fields: { ...jstor, url: 'ftp://x' } } } },
    { command: { type: 'AddDatabase', data: { fields: jstor, handle: 'jstor' } } },
    { command: { type: 'AddDatabase', data: { handle: 'jstor', fields: jstor } } },
    { command: { type: 'UpdateDatabase', data: { patch: { featured: true, subjects: ['history'] } } } },
    {
      command: {
        type: 'UpdateDatabase',
        data: { patch: { name: 'JSTOR Arts', audience: ['faculty', 'faculty'], hidden: undefined } },
      },
    },
    { command: { type: 'UpdateDatabase', data: { patch: { access: 'sometimes' as DatabaseFields['access'] } } } },
  ],
];
const library: Step<LibraryCommand, LibraryConfigured>[][] = [
  [
    { command: { type: 'ConfigureLibrary', data: { plan: 'plus' } } },
    { command: { type: 'ConfigureLibrary', data: { plan: 'plus', name: 'City Library' } } },
    { command: { type: 'ConfigureLibrary', data: { brand_color: 'red' } } },
    {
      command: {
        type: 'ConfigureLibrary',
        data: { proxy_prefix: 'https://proxy.example.edu/login?url=', name: undefined },
      },
    },
  ],
];
const lists: Step<DefineList, LibraryListDefined>[][] = [
  [
    { command: { type: 'DefineList', data: { handle: 'starter', name: 'Start', databases: ['jstor', 'jstor'] } } },
    { command: { type: 'DefineList', data: { name: 'Start here', databases: ['jstor'], handle: 'starter' } } },
    { command: { type: 'DefineList', data: { handle: 'starter', name: 'Start', databases: [] } } },
  ],
];
const subjects: Step<DefineTerm, SubjectDefined>[][] = [
  [
    { command: { type: 'DefineTerm', data: { handle: 'history', name: ' ' } } },
    { command: { type: 'DefineTerm', data: { name: 'History', handle: 'history' } } },
    { command: { type: 'DefineTerm', data: { handle: 'history', name: 'History' } } },
  ],
];
const reservations: Step<ReservationCommand, ReservationEvent>[][] = [
  [
    { command: { type: 'ReleaseKey', data: { key: 'k', owner: 'site-1' } } },
    { command: { type: 'ReserveKey', data: { key: 'k', owner: 'site-1', abandonedBy: null } } },
    { command: { type: 'ReserveKey', data: { key: 'k', owner: 'site-1', abandonedBy: null } } },
    { command: { type: 'ReserveKey', data: { key: 'k', owner: 'site-2', abandonedBy: null } } },
    { command: { type: 'ReserveKey', data: { key: 'k', owner: 'site-2', abandonedBy: 'site-1' } } },
    { command: { type: 'ReleaseKey', data: { key: 'k', owner: 'site-1' } } },
    { command: { type: 'ReleaseKey', data: { key: 'k', owner: 'site-2' } } },
  ],
];
const schedule: Step<ScheduleCommand, ScheduleEvent>[][] = [
  [
    { command: { type: 'FinishScheduledBackup', data: { tick: 'T1', backup_id: 1, status: 'complete', error: null } } },
    { command: { type: 'ClaimScheduledBackup', data: { tick: '2026-06-01T00:00:00.000Z' } } },
    { command: { type: 'ClaimScheduledBackup', data: { tick: '2026-06-01T00:00:00.000Z' } } },
    {
      command: {
        type: 'FinishScheduledBackup',
        data: { status: 'failed', error: 'disk', backup_id: null, tick: '2026-06-01T00:00:00.000Z' },
      },
    },
    {
      command: {
        type: 'FinishScheduledBackup',
        data: { tick: '2026-06-01T00:00:00.000Z', backup_id: 1, status: 'complete', error: null },
      },
    },
    { command: { type: 'ClaimScheduledBackup', data: { tick: '2026-06-02T00:00:00.000Z' } } },
  ],
];
const parents: Step<AttachChild, DomainEvent>[][] = [
  [
    { command: { type: 'AttachChild', data: { attached: { type: 'SitePageAttached', data: { id: 5 } } } } },
    { appended: [{ type: 'SiteCreated', data: { id: 1 } }] },
    { command: { type: 'AttachChild', data: { attached: { type: 'SitePageAttached', data: { id: 5 } } } } },
    { appended: [{ type: 'SiteDeleted', data: { id: 1 } }] },
    { command: { type: 'AttachChild', data: { attached: { type: 'SitePageAttached', data: { id: 6 } } } } },
  ],
];

function outputs(): Record<string, unknown> {
  return {
    posts: posts.map((steps) => replay(blogPostDecider, steps)),
    categories: categories.map((steps) => replay(blogCategoryDecider, steps)),
    comments: comments.map((steps) => replay(blogCommentDecider, steps)),
    assets: assets.map((steps) => replay(assetDecider, steps)),
    folders: folders.map((steps) => replay(assetFolderDecider, steps)),
    backups: backups.map((steps) => replay(backupDecider, steps)),
    sitePages: sitePages.map((steps) => replay(sitePageDecider, steps)),
    versionedPages: versionedPages.map((steps) => replay(versionedSitePageDecider, steps)),
    items: items.map((steps) => replay(itemDecider, steps)),
    sites: sites.map((steps) => replay(siteDecider, steps)),
    tags: tags.map((steps) => replay(blogTagDecider, steps)),
    blogSettings: blogSettings.map((steps) => replay(blogSettingsDecider, steps)),
    users: users.map((steps) => replay(userDecider, steps)),
    tokens: tokens.map((steps) => replay(tokenDecider, steps)),
    databases: databases.map((steps) => replay(databaseDecider, steps)),
    library: library.map((steps) => replay(libraryDecider, steps)),
    lists: lists.map((steps) => replay(listDecider, steps)),
    subjects: subjects.map((steps) => replay(subjectDecider, steps)),
    reservations: reservations.map((steps) => replay(reservationDecider, steps)),
    schedule: schedule.map((steps) => replay(scheduleDecider, steps)),
    parents: parents.map((steps) => replay(parentDecider(['SiteDeleted']), steps)),
  };
}

const GOLDEN = new URL('./decider-replay.golden.json', import.meta.url);

t.test("every decider's events, refusals and states are main's, byte for byte", async (t) => {
  const now = outputs();
  if (process.env.WRITE_GOLDEN === '1') writeFileSync(GOLDEN, `${JSON.stringify(now, null, 1)}\n`);
  const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, unknown[]>;
  for (const [name, runs] of Object.entries(now)) {
    // Compared as text, so a key in another order is a difference too.
    t.equal(JSON.stringify(runs), JSON.stringify(golden[name]), name);
  }
  t.same(Object.keys(now), Object.keys(golden), 'every script of the golden file ran');
});
