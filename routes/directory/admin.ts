import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import { KEY_OR_SESSION, type Principal } from '../http/auth.js';
import { answerVersion, IF_MATCH_CONFIG, ifMatchOf } from '../http/conditional/resource-version.js';
import {
  configureLibrary,
  generateToken,
  issueToken,
  revokeToken,
  updateDatabase,
} from '../../commands/directory/handlers.js';
import { ConfigureLibraryBody, DatabasePatchBody, IssueTokenBody } from '../../commands/directory/schemas.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../infra/errors.js';
import { clickCounts } from '../../queries/directory/clicks.js';
import { databaseDocs } from '../../contracts/directory/documents.js';
import { findLibrary } from '../../queries/directory/library.js';
import { findToken, listTokens, summarizeToken } from '../../queries/directory/tokens.js';
import { databaseAdminRecord, librarySettingsRecord } from './representations.js';
import { DatabaseAdminRecord, IssuedToken, LibrarySettingsRecord, TokenSummary } from './schemas.js';

const tags = ['directory-admin'];
const security: Record<string, string[]>[] = [{ apiKeyIdentity: [], apiKeyCredential: [] }, { session: [] }];
const NativeError = Type.Object({ errors: Type.Record(Type.String(), Type.Unknown()) });
const adminErrors = { 403: { ...NativeError, description: 'Not a Global Administrator (or a wrong API key).' } };
const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'A UTC day, YYYY-MM-DD.' });

/**
 * The directory's admin area ("API & widget"): tokens, click counts, library settings and
 * database changes. Global Administrators only, by API key or session; native error bodies.
 */
export const directoryAdminRoutes: RoutesPlugin = async (app, { runtime }) => {
  const { documents } = runtime;

  async function requireGlobalAdmin(request: FastifyRequest): Promise<Principal> {
    const user = await request.principal(KEY_OR_SESSION);
    if (user?.role !== 'global_admin') throw new ForbiddenError('A Global Administrator is required.');
    return user;
  }

  app.post(
    '/tokens',
    {
      schema: {
        tags,
        security,
        summary: 'Create a directory API token',
        description:
          'Returns the token once (store it: only its SHA-256 hash is kept). `allowed_origins` (e.g. `https://library.example.edu`) restricts the API and widget to those sites; empty means any site.',
        body: IssueTokenBody,
        response: { 201: IssuedToken, 422: NativeError, ...adminErrors },
      },
      // A POST with no body at all asks for the defaults (any origin, no label).
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const user = await requireGlobalAdmin(request);
      const token = generateToken();
      const id = await issueToken(runtime.commandContext(user.id, request.id), { token, input: request.body });
      const doc = await findToken(documents, id);
      const answer: IssuedToken = { ...summarizeToken(doc!), token };
      return reply.status(201).send(answer);
    },
  );

  app.get(
    '/tokens',
    {
      schema: {
        tags,
        security,
        summary: 'List directory API tokens',
        description: 'Active tokens (with `include_revoked=1`, revoked ones too). Never the tokens themselves.',
        querystring: Type.Object({
          include_revoked: Type.Optional(
            Type.Union([Type.Literal('1'), Type.Literal('0'), Type.Literal('true'), Type.Literal('false')]),
          ),
        }),
        response: { 200: Type.Array(TokenSummary), ...adminErrors },
      },
    },
    async (request): Promise<TokenSummary[]> => {
      await requireGlobalAdmin(request);
      const flag = request.query.include_revoked;
      return listTokens(documents, flag === '1' || flag === 'true');
    },
  );

  app.delete(
    '/tokens/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Revoke a directory API token',
        description: 'The token stops working at once (401). Revoking an unknown or already revoked token is 404.',
        params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
        response: { 200: TokenSummary, 404: NativeError, ...adminErrors },
      },
    },
    async (request): Promise<TokenSummary> => {
      const user = await requireGlobalAdmin(request);
      const { id } = request.params;
      if (!(await findToken(documents, id))) throw new NotFoundError('Token not found.');
      await revokeToken(runtime.commandContext(user.id, request.id), id);
      return summarizeToken((await findToken(documents, id))!);
    },
  );

  app.get(
    '/clicks',
    {
      schema: {
        tags,
        security,
        summary: 'Click counts per database and day',
        description:
          'Counts of tracked-link clicks (API links.open and widget cards) per database per UTC day, oldest first; `from` and `to` are inclusive days.',
        querystring: Type.Object({
          from: Type.Optional(Day),
          to: Type.Optional(Day),
          handle: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: {
          200: Type.Array(Type.Object({ handle: Type.String(), date: Type.String(), count: Type.Integer() })),
          422: NativeError,
          ...adminErrors,
        },
      },
    },
    async (request) => {
      await requireGlobalAdmin(request);
      const query = request.query;
      if (query.from && query.to && query.from > query.to) throw ValidationError.field('from', 'Must not be after to.');
      return clickCounts(documents, query);
    },
  );

  app.get(
    '/library',
    {
      schema: {
        tags,
        security,
        summary: "The library's directory settings",
        response: { 200: LibrarySettingsRecord, 404: NativeError, ...adminErrors },
      },
    },
    async (request): Promise<LibrarySettingsRecord> => {
      await requireGlobalAdmin(request);
      const library = await findLibrary(documents);
      if (!library) throw new NotFoundError('The library is not configured.');
      return librarySettingsRecord(library);
    },
  );

  app.patch(
    '/library',
    {
      schema: {
        tags,
        security,
        summary: "Change the library's directory settings",
        description:
          'Only the keys present change. `plan` plus or trial gives access to the API and widget; basic does not.',
        body: ConfigureLibraryBody,
        response: { 200: LibrarySettingsRecord, 422: NativeError, ...adminErrors },
      },
    },
    async (request): Promise<LibrarySettingsRecord> => {
      const user = await requireGlobalAdmin(request);
      return librarySettingsRecord(await configureLibrary(runtime.commandContext(user.id, request.id), request.body));
    },
  );

  app.patch(
    '/databases/:handle',
    {
      config: IF_MATCH_CONFIG,
      schema: {
        tags,
        security,
        summary: 'Change a database',
        description: 'Only the keys present change (e.g. `{"hidden": true}` takes it out of the directory at once).',
        params: Type.Object({ handle: Type.String({ minLength: 1, maxLength: 200 }) }),
        body: DatabasePatchBody,
        response: { 200: DatabaseAdminRecord, 404: NativeError, 422: NativeError, ...adminErrors },
      },
    },
    async (request, reply): Promise<DatabaseAdminRecord> => {
      const user = await requireGlobalAdmin(request);
      const { handle } = request.params;
      if (!(await databaseDocs(documents).findOne({ _id: handle }))) throw new NotFoundError('Database not found.');
      await updateDatabase(runtime.commandContext(user.id, request.id), {
        handle,
        patch: request.body,
        ifMatch: ifMatchOf(request),
      });
      const doc = (await databaseDocs(documents).findOne({ _id: handle }))!;
      answerVersion(reply, doc.version);
      return databaseAdminRecord(doc);
    },
  );
};
