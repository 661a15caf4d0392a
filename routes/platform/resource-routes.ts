import { Type, type TObject, type TProperties } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { KEY_OR_SESSION, type Principal } from '../../app/auth.js';
import type { Runtime } from '../../app/runtime.js';
import { isEditorOrAbove } from '../../commands/users/roles.js';
import {
  createResource,
  deleteResource,
  updateResource,
  type KindSpec,
} from '../../commands/platform/handlers.js';
import type { Document, Filter } from '../../infra/document-store/port.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../infra/errors.js';
import { JsonLdObject, PageQuery, pageWindow, setPaginationHeaders } from '../json-ld.js';

/** What the generic routes need to serve one host platform resource under /api/{path}. */
export interface ResourceRoutes<Fields extends object, Doc extends Document> {
  path: string;
  type: string;
  tag: string;
  spec: KindSpec<Fields>;
  /** Schema of the write body: the representation's `o:` keys, all optional. */
  body: TObject;
  /** `o:` keys a create must carry. */
  requiredOnCreate: string[];
  /** Defaults a create starts from before the body's keys apply. */
  defaults: () => Fields;
  /** Maps the body's `o:` keys to fields; keys absent from the body stay absent. */
  fromBody(body: Record<string, unknown>): Partial<Fields>;
  represent(doc: Doc, baseUrl: string): Record<string, unknown>;
  /** Records that only Editor and above may see. */
  isPrivate(doc: Doc): boolean;
  /** Extra list filters from the query string. */
  listQuery?: TProperties;
  listFilter?(query: Record<string, unknown>): Filter;
}

const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

export async function resourceRoutes<Fields extends object, Doc extends Document>(
  app: FastifyInstance,
  runtime: Runtime,
  def: ResourceRoutes<Fields, Doc>,
): Promise<void> {
  const base = `/api/${def.path}`;
  const collection = () => runtime.documents.collection<Doc>(def.path);
  const baseUrl = runtime.config.baseUrl;

  async function requireEditor(request: FastifyRequest): Promise<Principal> {
    const user = await request.principal(KEY_OR_SESSION);
    if (!user || !isEditorOrAbove(user.role)) throw new ForbiddenError('Editor or above is required to change this resource.');
    return user;
  }

  async function visibleOne(request: FastifyRequest, id: number): Promise<Doc> {
    const user = await request.principal(KEY_OR_SESSION);
    const doc = await collection().findOne({ _id: id });
    if (!doc || (def.isPrivate(doc) && !isEditorOrAbove(user?.role))) throw new NotFoundError(`${def.spec.label} not found.`);
    return doc;
  }

  function missingOnCreate(body: Record<string, unknown>): Record<string, string[]> | null {
    const missing = def.requiredOnCreate.filter((key) => body[key] === undefined || body[key] === null);
    return missing.length ? Object.fromEntries(missing.map((key) => [key, ['This field is required.']])) : null;
  }

  app.get(
    base,
    {
      schema: {
        tags: [def.tag],
        summary: `List ${def.path}`,
        querystring: Type.Object({ ...PageQuery, ...(def.listQuery ?? {}) }),
        response: { 200: Type.Array(JsonLdObject) },
      },
    },
    async (request, reply) => {
      const query = request.query as Record<string, unknown> & { page?: number; per_page?: number };
      const user = await request.principal(KEY_OR_SESSION);
      const filter: Filter = { ...(def.listFilter?.(query) ?? {}) };
      const all = await collection().find(filter, { sort: { id: 1 } });
      const visible = isEditorOrAbove(user?.role) ? all : all.filter((doc) => !def.isPrivate(doc));
      const window = pageWindow(query, 25);
      setPaginationHeaders(request, reply, baseUrl, visible.length, window);
      return visible.slice(window.skip, window.skip + window.perPage).map((doc) => def.represent(doc, baseUrl));
    },
  );

  app.get(
    `${base}/:id`,
    { schema: { tags: [def.tag], summary: `Read one of ${def.path}`, params: IdParams, response: { 200: JsonLdObject } } },
    async (request) => def.represent(await visibleOne(request, (request.params as { id: number }).id), baseUrl),
  );

  app.post(
    base,
    { schema: { tags: [def.tag], summary: `Create one of ${def.path}`, body: def.body, response: { 201: JsonLdObject } } },
    async (request, reply) => {
      const user = await requireEditor(request);
      const body = request.body as Record<string, unknown>;
      const missing = missingOnCreate(body);
      if (missing) throw new ValidationError('Required fields are missing.', missing);
      const fields = { ...def.defaults(), ...def.fromBody(body) } as Fields;
      const id = await createResource(runtime.commandContext(user.id, request.id), def.spec, fields);
      const doc = await collection().findOne({ _id: id });
      return reply.status(201).send(def.represent(doc as Doc, baseUrl));
    },
  );

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: `${base}/:id`,
      schema: { tags: [def.tag], summary: `Update one of ${def.path} (only keys present change)`, params: IdParams, body: def.body, response: { 200: JsonLdObject } },
      handler: async (request) => {
        const user = await requireEditor(request);
        const id = (request.params as { id: number }).id;
        await updateResource(runtime.commandContext(user.id, request.id), def.spec, id, def.fromBody(request.body as Record<string, unknown>));
        return def.represent((await collection().findOne({ _id: id })) as Doc, baseUrl);
      },
    });
  }

  app.delete(
    `${base}/:id`,
    { schema: { tags: [def.tag], summary: `Delete one of ${def.path}`, params: IdParams, response: { 200: JsonLdObject } } },
    async (request) => {
      const user = await requireEditor(request);
      const id = (request.params as { id: number }).id;
      const doc = await collection().findOne({ _id: id });
      if (!doc) throw new NotFoundError(`${def.spec.label} not found.`);
      const representation = def.represent(doc, baseUrl);
      await deleteResource(runtime.commandContext(user.id, request.id), def.spec, id);
      return representation;
    },
  );
}
