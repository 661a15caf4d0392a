import { Type, type Static } from '@sinclair/typebox';
import { VERSION_OPERATIONS } from '../../contracts/page-versioning/documents.js';

export const TAG = 'page-versioning';

const id = (description: string) => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description });

export const PageParams = Type.Object({ pageId: id('Site page id (a positive integer).') });
export const VersionParams = Type.Object({ versionId: id('Version id (a positive integer).') });

export const ListQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Versions per page, 1 to 200.' }),
  offset: Type.Integer({ minimum: 0, default: 0, description: 'Versions to skip.' }),
  type: Type.String({ default: 'site_page', description: 'Resource type; only `site_page` is versioned.' }),
});

export const DiffQuery = Type.Object({
  against: Type.Optional(id('Version of the same page to compare with (default: the version saved before this one).')),
});

const Block = Type.Object({ layout: Type.String(), data: Type.Record(Type.String(), Type.Unknown()) });
/** A page as a version saved it: the site page's fields (test/types/page-versioning-replies.test.ts holds the two alike). */
export const PagePayload = Type.Object({
  title: Type.String(),
  slug: Type.String(),
  is_public: Type.Boolean(),
  layout: Type.Union([Type.String(), Type.Null()]),
  layout_data: Type.Record(Type.String(), Type.Unknown()),
  blocks: Type.Array(Block),
  site_id: Type.Integer(),
});

export const VersionSummary = Type.Object({
  id: Type.Integer(),
  resource_id: Type.Integer(),
  resource_type: Type.Literal('site_page'),
  title: Type.String(),
  slug: Type.String(),
  operation: Type.Union(VERSION_OPERATIONS.map((operation) => Type.Literal(operation))),
  editor_id: Type.Union([Type.Integer(), Type.Null()], {
    description: 'null for changes made by the system (fixture import).',
  }),
  editor_name: Type.String(),
  summary: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ description: '`YYYY-MM-DD HH:MM:SS`, UTC' }),
});

/** The full form: the summary, the payload, and (for convenience) the payload's keys at top level too. */
export const FullVersion = Type.Composite([
  VersionSummary,
  Type.Omit(PagePayload, ['title', 'slug']),
  Type.Object({ payload: PagePayload }),
]);

const ok = <T extends ReturnType<typeof Type.Object>>(data: T) => Type.Object({ status: Type.Literal('ok'), data });

export const ErrorEnvelope = Type.Object({ status: Type.Literal('error'), message: Type.String() });
export const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [status, ErrorEnvelope]));

/** The answers as their schemas type them: each route of index.ts returns exactly one (tsc says so). */
export type PagePayload = Static<typeof PagePayload>;
export type VersionSummary = Static<typeof VersionSummary>;

export const ListResponse = ok(
  Type.Object({
    resource_id: Type.Integer(),
    resource_type: Type.Literal('site_page'),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
    versions: Type.Array(VersionSummary),
  }),
);

export type ListResponse = Static<typeof ListResponse>;

export const VersionResponse = ok(FullVersion);
export type VersionResponse = Static<typeof VersionResponse>;

export const RevertResponse = ok(Type.Object({ new_version_id: Type.Integer() }));
export type RevertResponse = Static<typeof RevertResponse>;

const FieldChange = Type.Object({
  field: Type.String(),
  before: Type.Unknown(),
  after: Type.Unknown(),
});
const BlockChange = Type.Object({
  index: Type.Integer({ description: '0-based position of the block' }),
  change: Type.Union([Type.Literal('added'), Type.Literal('removed'), Type.Literal('changed')]),
  before: Type.Union([Block, Type.Null()]),
  after: Type.Union([Block, Type.Null()]),
});

export const DiffResponse = ok(
  Type.Object({
    version_id: Type.Integer(),
    against_version_id: Type.Union([Type.Integer(), Type.Null()], {
      description: "null when the version is the page's first",
    }),
    resource_id: Type.Integer(),
    resource_type: Type.Literal('site_page'),
    fields: Type.Array(FieldChange, {
      description: 'Changed page fields; before is the `against` version, after this one.',
    }),
    blocks: Type.Array(BlockChange, { description: 'Blocks added, removed or changed, by position.' }),
  }),
);
export type DiffResponse = Static<typeof DiffResponse>;
