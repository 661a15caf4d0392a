import multipart from '@fastify/multipart';
import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { CommandContext } from '../../commands/command-context.js';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import { KEY_OR_SESSION, type Principal } from '../http/auth.js';
import {
  answerVersion,
  CREATED_ETAG_CONFIG,
  IF_MATCH_CONFIG,
  ifMatchOf,
} from '../http/conditional/resource-version.js';
import { isEditorOrAbove } from '../../contracts/users/roles.js';
import { createResource, deleteResource, updateResource, type KindSpec } from '../../commands/platform/handlers.js';
import type { CollectionOptions, Document, Filter } from '../../infra/document-store/port.js';
import { ForbiddenError, NotFoundError } from '../../infra/errors.js';
import type { LdBody } from '../../commands/platform/ld-body.js';
import { JsonLdObject, PageQuery, pageWindow, setPaginationHeaders } from '../json-ld.js';
import { documentedBody, representationAnswers } from './documented-schemas.js';
import { hiddenAmong, namesHidden, NOTHING_HIDDEN, type HiddenIds, type References } from './hidden-ids.js';

/**
 * What the generic routes need to serve one host platform resource under /api/{path}: `Fields`
 * is the kind's fields schema (contracts/platform/fields.ts), `Body` its write body's and `Rep`
 * its representation's, whose Static type `represent` returns.
 */
export interface ResourceRoutes<
  Fields extends TObject,
  Doc extends VersionedDocument,
  Body extends TObject,
  Rep extends TObject,
> {
  path: string;
  type: string;
  tag: string;
  spec: KindSpec<Static<Fields>>;
  /** The write body (commands/platform/schemas.ts): the representation's `o:` keys, all optional. */
  body: LdBody<Fields, Body>;
  /** The representation `represent` makes, for the OpenAPI document (documented-schemas.ts). */
  representation: Rep;
  /** `hidden`: private children the caller may not see, left out of the lists of children. */
  represent(doc: Doc, baseUrl: string, hidden: HiddenIds): Static<Rep>;
  /** Records that only Editor and above may see; `hidden` is what else such callers may not see. */
  isPrivate(doc: Doc, hidden: HiddenIds): boolean;
  /**
   * The records these documents' representations refer to (an item's media and sets; a
   * media's item): below Editor, the private ones among them are looked up per request.
   */
  references?(docs: readonly Doc[]): References;
  /** True when isPrivate depends on the referred records too (a media on its item). */
  privateByReference?: boolean;
  /**
   * isPrivate's rule as a store filter, for records whose privacy is their own (not by
   * reference): the documents it leaves visible. With it a list reads one page and a count,
   * not every matching document (test/routes/platform/public-filter.test.ts checks the two
   * rules agree).
   */
  publicFilter?: Filter;
  /** The store's indexes of the records' collection (the same constant its read-model accessor passes). */
  collectionOptions?: CollectionOptions;
  /** Extra list filters from the query string. */
  listQuery?: TProperties;
  listFilter?(query: Record<string, unknown>): Filter;
  /** The records the list filters name (`item_set_id`): filtering by a private one lists nothing below Editor. */
  listFilterReferences?(query: Record<string, unknown>): References;
}

const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

/** A multipart body is read as a stream by the create itself: nothing for the validator to check. */
const MULTIPART = { type: ['object', 'null'] };
const TOO_LARGE = Type.Object(
  { errors: Type.Object({ error: Type.String() }) },
  { description: 'The file is larger than MAX_UPLOAD_BYTES, or the form has too many parts.' },
);

/** A create that may also come as multipart/form-data (a media with its file, routes/platform/media-upload.ts). */
export interface MultipartCreate {
  /** The form, as the OpenAPI document shows it. */
  form: TSchema;
  /** The largest text part (the JSON body) and file the form may hold. */
  limits: { fieldSize: number; fileSize: number };
  /** Reads the form and creates the record; answers its id. */
  create(request: FastifyRequest, ctx: CommandContext): Promise<number>;
}

/** A record's document with the version its projection keeps (the ETag's). */
type VersionedDocument = Document & { version?: number };

/** The list, read, create, update and delete routes of one resource, registered under the prefix `/api/{path}`. */
export function resourceRoutes<
  Fields extends TObject,
  Doc extends VersionedDocument,
  Body extends TObject,
  Rep extends TObject,
>(def: ResourceRoutes<Fields, Doc, Body, Rep>, upload?: MultipartCreate): RoutesPlugin {
  return async (app, { runtime }) => {
    const answers = representationAnswers(def.representation);
    // The required keys are the body's check (def.body.create), whose 422 names each one.
    const jsonBody = documentedBody(def.body.schema, def.body.required);
    const createBody: TSchema = upload
      ? Type.Unsafe({
          content: { 'application/json': { schema: jsonBody }, 'multipart/form-data': { schema: upload.form } },
        })
      : jsonBody;
    if (upload) {
      // In this plugin's scope only: the other resources keep refusing multipart bodies.
      await app.register(multipart, {
        limits: {
          fileSize: upload.limits.fileSize,
          files: 10,
          fields: 10,
          fieldSize: upload.limits.fieldSize,
          parts: 20,
        },
        throwFileSizeLimit: true,
      });
    }
    const collection = () => runtime.documents.collection<Doc>(def.path, def.collectionOptions);
    const baseUrl = runtime.config.baseUrl;
    const privacy =
      'Private records are visible to Editor and above only (404 and left out of lists for others), and the records a ' +
      "representation refers to (`o:media`, `o:item_set`, a media's item) are listed only when the caller may see them.";

    async function requireEditor(request: FastifyRequest): Promise<Principal> {
      const user = await request.principal(KEY_OR_SESSION);
      if (!user || !isEditorOrAbove(user.role))
        throw new ForbiddenError('Editor or above is required to change this resource.');
      return user;
    }

    /** What a caller below Editor may not see of the records these documents refer to. */
    async function hiddenFor(docs: readonly Doc[]): Promise<HiddenIds> {
      return def.references && docs.length > 0 ? hiddenAmong(runtime.documents, def.references(docs)) : NOTHING_HIDDEN;
    }

    /** The document and what the caller may not see of what it refers to; 404 when it is private. */
    async function visibleOne(request: FastifyRequest, id: number): Promise<{ doc: Doc; hidden: HiddenIds }> {
      const user = await request.principal(KEY_OR_SESSION);
      const doc = await collection().findOne({ _id: id });
      if (!doc) throw new NotFoundError(`${def.spec.label} not found.`);
      if (isEditorOrAbove(user?.role)) return { doc, hidden: NOTHING_HIDDEN };
      const hidden = await hiddenFor([doc]);
      if (def.isPrivate(doc, hidden)) throw new NotFoundError(`${def.spec.label} not found.`);
      return { doc, hidden };
    }

    /**
     * The body as def.body's type. The route validated it against def.body.schema; only the
     * compiler cannot resolve the type provider's type for a schema that is a type parameter here
     * (each kind's body is derived from its fields with its own schema's Static type).
     */
    // eslint-disable-next-line no-restricted-syntax -- the one boundary of a generic schema, see above
    const bodyOf = (request: { body: unknown }): Static<Body> => request.body as Static<Body>;

    async function createFromJson(request: { body: unknown }, ctx: CommandContext): Promise<number> {
      return createResource(ctx, { spec: def.spec, fields: def.body.create(bodyOf(request)) });
    }

    /** The record just written: the write waited for its projection, so it is there (unless deleted since). */
    async function written(id: number): Promise<Doc> {
      const doc = await collection().findOne({ _id: id });
      if (!doc) throw new NotFoundError(`${def.spec.label} not found.`);
      return doc;
    }

    app.get(
      '',
      {
        schema: {
          tags: [def.tag],
          summary: `List ${def.path}`,
          description: privacy,
          querystring: Type.Object({ ...PageQuery, ...(def.listQuery ?? {}) }),
          response: { 200: Type.Array(JsonLdObject) },
        },
        config: { documentedResponses: answers.list },
      },
      async (request, reply) => {
        const query = request.query;
        const user = await request.principal(KEY_OR_SESSION);
        const filter: Filter = { ...(def.listFilter?.(query) ?? {}) };
        const seesAll = isEditorOrAbove(user?.role);
        if (
          !seesAll &&
          def.listFilterReferences &&
          namesHidden(await hiddenAmong(runtime.documents, def.listFilterReferences(query)))
        ) {
          // Which public records belong to a private one is not told: as for an unknown id, nothing.
          setPaginationHeaders(request, reply, baseUrl, 0, pageWindow(query, 25));
          return [];
        }
        const publicFilter = def.privateByReference ? undefined : def.publicFilter;
        if (seesAll || publicFilter) {
          // The store counts and reads the page (indexed in SQLite): no list reads every record.
          const where = seesAll ? filter : { ...filter, ...publicFilter };
          const window = pageWindow(query, 25);
          const [total, shown] = await Promise.all([
            collection().count(where),
            collection().find(where, { sort: { id: 1 }, skip: window.skip, limit: window.perPage }),
          ]);
          setPaginationHeaders(request, reply, baseUrl, total, window);
          const hidden = seesAll ? NOTHING_HIDDEN : await hiddenFor(shown);
          return shown.map((doc) => def.represent(doc, baseUrl, hidden));
        }
        const all = await collection().find(filter, { sort: { id: 1 } });
        const hiddenAmongAll = !seesAll && def.privateByReference ? await hiddenFor(all) : NOTHING_HIDDEN;
        const visible = seesAll ? all : all.filter((doc) => !def.isPrivate(doc, hiddenAmongAll));
        const window = pageWindow(query, 25);
        setPaginationHeaders(request, reply, baseUrl, visible.length, window);
        const shown = visible.slice(window.skip, window.skip + window.perPage);
        const hidden = seesAll ? NOTHING_HIDDEN : def.privateByReference ? hiddenAmongAll : await hiddenFor(shown);
        return shown.map((doc) => def.represent(doc, baseUrl, hidden));
      },
    );

    app.get(
      '/:id',
      {
        schema: {
          tags: [def.tag],
          summary: `Read one of ${def.path}`,
          description: privacy,
          params: IdParams,
          response: { 200: JsonLdObject },
        },
        config: { documentedResponses: answers.one },
      },
      async (request, reply) => {
        const { doc, hidden } = await visibleOne(request, request.params.id);
        answerVersion(reply, doc.version);
        return def.represent(doc, baseUrl, hidden);
      },
    );

    app.post(
      '',
      {
        schema: {
          tags: [def.tag],
          summary: `Create one of ${def.path}`,
          body: upload
            ? {
                content: {
                  'application/json': { schema: def.body.schema },
                  'multipart/form-data': { schema: MULTIPART },
                },
              }
            : def.body.schema,
          response: { 201: JsonLdObject },
        },
        config: {
          ...CREATED_ETAG_CONFIG,
          documentedResponses: upload ? { ...answers.created, 413: TOO_LARGE } : answers.created,
          documentedBody: createBody,
        },
      },
      async (request, reply) => {
        const user = await requireEditor(request);
        const ctx = runtime.commandContext(user.id, request.id);
        const id =
          upload && request.isMultipart() ? await upload.create(request, ctx) : await createFromJson(request, ctx);
        const doc = await written(id);
        answerVersion(reply, doc.version);
        // Writers are Editor and above, who see every child.
        return reply.status(201).send(def.represent(doc, baseUrl, NOTHING_HIDDEN));
      },
    );

    for (const method of ['PUT', 'PATCH'] as const) {
      app.route({
        method,
        url: '/:id',
        config: { ...IF_MATCH_CONFIG, documentedResponses: answers.one },
        schema: {
          tags: [def.tag],
          summary: `Update one of ${def.path} (only keys present change)`,
          params: IdParams,
          body: def.body.schema,
          response: { 200: JsonLdObject },
        },
        handler: async (request, reply) => {
          const user = await requireEditor(request);
          const id = request.params.id;
          await updateResource(runtime.commandContext(user.id, request.id), {
            spec: def.spec,
            id,
            patch: def.body.patch(bodyOf(request)),
            ifMatch: ifMatchOf(request),
          });
          const doc = await written(id);
          answerVersion(reply, doc.version);
          return def.represent(doc, baseUrl, NOTHING_HIDDEN);
        },
      });
    }

    app.delete(
      '/:id',
      {
        config: {
          ...IF_MATCH_CONFIG,
          documentedResponses: { 200: { ...def.representation, description: 'The record as it was.' } },
        },
        schema: {
          tags: [def.tag],
          summary: `Delete one of ${def.path}`,
          params: IdParams,
          response: { 200: JsonLdObject },
        },
      },
      async (request) => {
        const user = await requireEditor(request);
        const id = request.params.id;
        const doc = await collection().findOne({ _id: id });
        if (!doc) throw new NotFoundError(`${def.spec.label} not found.`);
        const representation = def.represent(doc, baseUrl, NOTHING_HIDDEN);
        await deleteResource(runtime.commandContext(user.id, request.id), {
          spec: def.spec,
          id,
          ifMatch: ifMatchOf(request),
        });
        return representation;
      },
    );
  };
}
