import { Type, type Static } from '@sinclair/typebox';
import { UNCONFIGURED_LIBRARY } from '../../contracts/directory/fields.js';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import { answerVersion } from '../http/conditional/resource-version.js';
import { ACCESS_VALUES } from '../../contracts/directory/values.js';
import { NotFoundError } from '../../infra/errors.js';
import {
  countVisibleDatabases,
  findVisibleDatabase,
  findVisibleDatabaseDoc,
  searchDatabases,
  type DatabaseView,
} from '../../queries/directory/databases.js';
import { findLibrary } from '../../queries/directory/library.js';
import { findList, listSummaries } from '../../queries/directory/lists.js';
import { subjectsWithCounts, typesWithCounts } from '../../queries/directory/terms.js';
import { databaseRecord } from './representations.js';
import {
  DatabaseRecord,
  directoryErrors,
  ErrorBody,
  LibraryRecord,
  ListMeta,
  ListRecord,
  TermRef,
  TermWithCount,
  TokenQuery,
} from './schemas.js';

const DEFAULT_PER_PAGE = 25;
const MAX_PER_PAGE = 100;
const security: Record<string, string[]>[] = [{ directoryToken: [] }];
const tags = ['directory'];

const DatabasesQuery = Type.Object({
  ...TokenQuery,
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Matches name and description, case-insensitive.' })),
  subject: Type.Optional(Type.String({ maxLength: 100, description: 'Subject handle.' })),
  type: Type.Optional(Type.String({ maxLength: 100, description: 'Type handle.' })),
  access: Type.Optional(
    Type.Union(
      [...ACCESS_VALUES, ''].map((a) => Type.Literal(a)),
      { description: 'open, subscription, trial or restricted.' },
    ),
  ),
  audience: Type.Optional(Type.String({ maxLength: 100, description: 'An audience value, e.g. undergraduate.' })),
  featured: Type.Optional(
    Type.Union([Type.Literal('1'), Type.Literal('true'), Type.Literal('0'), Type.Literal('false'), Type.Literal('')], {
      description: '`1` (or `true`): featured databases only; `0`/`false` or absent: no filter.',
    }),
  ),
  page: Type.Optional(Type.Integer({ minimum: 1, description: 'Page number, from 1 (default 1).' })),
  per_page: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Page size (default 25); values above 100 are treated as 100.' }),
  ),
});
const HandleParams = Type.Object({ handle: Type.String({ minLength: 1, maxLength: 200 }) });

/** The read-only directory API under /api/v1/ (CONTRACT.md section 5); the access hook and rate limit wrap it. */
export const directoryApiRoutes: RoutesPlugin = async (scope, { runtime }) => {
  const { documents } = runtime;
  const baseUrl = runtime.config.baseUrl;
  const record = (db: DatabaseView) => databaseRecord(baseUrl, db);

  scope.get(
    '/library',
    {
      schema: {
        tags,
        security,
        summary: 'Library-level information',
        description:
          "The library's name, plan, brand color (used by the widget), its count of visible databases and its curated lists.",
        querystring: Type.Object(TokenQuery),
        response: { 200: Type.Object({ data: LibraryRecord }), ...directoryErrors },
      },
    },
    async (): Promise<{ data: LibraryRecord }> => {
      const library = (await findLibrary(documents)) ?? UNCONFIGURED_LIBRARY;
      return {
        data: {
          name: library.name,
          plan: library.plan,
          brand_color: library.brand_color,
          database_count: await countVisibleDatabases(documents),
          lists: await listSummaries(documents),
          links: {
            databases: `${baseUrl}/api/v1/databases`,
            subjects: `${baseUrl}/api/v1/subjects`,
            types: `${baseUrl}/api/v1/types`,
            widget: `${baseUrl}/widget.js`,
          },
        },
      };
    },
  );

  scope.get(
    '/databases',
    {
      schema: {
        tags,
        security,
        summary: 'Paginated list of databases',
        description:
          'Databases patrons can see, name A to Z (case-insensitive). Filters combine (AND); an empty filter value is no filter. An unknown subject or type handle matches nothing. `meta` gives page, per_page, total and total_pages; a page past the end has empty `data`.',
        querystring: DatabasesQuery,
        response: {
          200: Type.Object({ data: Type.Array(DatabaseRecord), meta: ListMeta }),
          400: ErrorBody,
          ...directoryErrors,
        },
      },
    },
    async (request): Promise<{ data: DatabaseRecord[]; meta: Static<typeof ListMeta> }> => {
      const query = request.query;
      const page = query.page ?? 1;
      const perPage = Math.min(query.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
      const { databases, total } = await searchDatabases(
        documents,
        {
          q: query.q,
          subject: query.subject || undefined,
          type: query.type || undefined,
          access: query.access || undefined,
          audience: query.audience || undefined,
          featuredOnly: query.featured === '1' || query.featured === 'true',
        },
        { skip: (page - 1) * perPage, limit: perPage },
      );
      return {
        data: databases.map(record),
        meta: { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) },
      };
    },
  );

  scope.get(
    '/databases/:handle',
    {
      schema: {
        tags,
        security,
        summary: 'One database',
        description: 'A database by handle; hidden and unknown databases are 404.',
        params: HandleParams,
        querystring: Type.Object(TokenQuery),
        response: { 200: Type.Object({ data: DatabaseRecord }), 404: ErrorBody, ...directoryErrors },
      },
    },
    async (request, reply): Promise<{ data: DatabaseRecord }> => {
      const db = await findVisibleDatabase(documents, request.params.handle);
      if (!db) throw new NotFoundError('Database not found.');
      // The record does not carry its version (the seed names its fields): the document does.
      answerVersion(reply, (await findVisibleDatabaseDoc(documents, request.params.handle))?.version);
      return { data: record(db) };
    },
  );

  for (const [path, label, load] of [
    ['/subjects', 'subjects', subjectsWithCounts],
    ['/types', 'database types', typesWithCounts],
  ] as const) {
    scope.get(
      path,
      {
        schema: {
          tags,
          security,
          summary: `List of ${label}`,
          description: `Every one of the ${label}, name A to Z, with database_count: the databases patrons can see (hidden ones are not counted). Not paginated.`,
          querystring: Type.Object(TokenQuery),
          response: { 200: Type.Object({ data: Type.Array(TermWithCount) }), ...directoryErrors },
        },
      },
      async (): Promise<{ data: TermWithCount[] }> => ({ data: await load(documents) }),
    );
  }

  scope.get(
    '/lists',
    {
      schema: {
        tags,
        security,
        summary: "The library's curated lists",
        querystring: Type.Object(TokenQuery),
        response: { 200: Type.Object({ data: Type.Array(TermRef) }), ...directoryErrors },
      },
    },
    async (): Promise<{ data: TermRef[] }> => ({ data: await listSummaries(documents) }),
  );

  scope.get(
    '/lists/:handle',
    {
      schema: {
        tags,
        security,
        summary: 'One curated list',
        description:
          "The list's databases in the list's order; hidden databases are left out. Used by the widget's data-list.",
        params: HandleParams,
        querystring: Type.Object(TokenQuery),
        response: { 200: Type.Object({ data: ListRecord }), 404: ErrorBody, ...directoryErrors },
      },
    },
    async (request): Promise<{ data: ListRecord }> => {
      const list = await findList(documents, request.params.handle);
      if (!list) throw new NotFoundError('List not found.');
      return { data: { ...list, databases: list.databases.map(record) } };
    },
  );
};
