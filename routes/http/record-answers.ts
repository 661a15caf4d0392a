import type { FastifyReply } from 'fastify';
import { NotFoundError } from '../../infra/errors.js';
import { answerVersion } from './conditional/resource-version.js';

/** One kind of record as its routes answer it. */
export interface RecordKind<Doc extends object, Answer> {
  /** The record's read-model document, or null when there is none. */
  find(id: number): Promise<Doc | null>;
  /** The message of the 404 when it is missing. */
  notFound: string;
  /** The record as the route's response schema shows it. */
  represent(doc: Doc): Answer | Promise<Answer>;
}

/** Whether the caller may not see this record: it is answered as missing (404). */
export type Hidden<Doc> = (doc: Doc) => boolean | Promise<boolean>;

/** The document's version (its ETag's), when it keeps one. */
function versionOf(doc: object): number | undefined {
  return 'version' in doc && typeof doc.version === 'number' ? doc.version : undefined;
}

/**
 * What every route of one record does around its command: read the record (a 404 when it is
 * missing), declare its version where the answer carries its ETag, and represent it. A read
 * always declares it (a strong ETag; a weak one of the body when the document keeps no
 * version); a write only when its route says its answer carries one, as the OpenAPI document
 * reads it too: IF_MATCH_CONFIG for an update, CREATED_ETAG_CONFIG for a create.
 */
export function recordAnswers<Doc extends object, Answer>(kind: RecordKind<Doc, Answer>) {
  async function found(id: number, hidden?: Hidden<Doc>): Promise<Doc> {
    const doc = await kind.find(id);
    if (!doc || (hidden !== undefined && (await hidden(doc)))) throw new NotFoundError(kind.notFound);
    return doc;
  }

  /** The record read back after a write. */
  async function written(reply: FastifyReply, id: number): Promise<Answer> {
    const doc = await found(id);
    const { ifMatch, createdETag } = reply.routeOptions.config;
    if (ifMatch === true || createdETag === true) answerVersion(reply, versionOf(doc));
    return kind.represent(doc);
  }

  return {
    /** The record, or the 404. */
    found,

    /** The record read back after a write the route ran itself (see created and updated). */
    written,

    /** GET: the record (a 404 when missing or hidden from the caller), with its version. */
    async read(reply: FastifyReply, id: number, hidden?: Hidden<Doc>): Promise<Answer> {
      const doc = await found(id, hidden);
      answerVersion(reply, versionOf(doc));
      return kind.represent(doc);
    },

    /** POST: runs the create, and answers 201 with the record it made. */
    async created(reply: FastifyReply, create: () => Promise<number>): Promise<Answer> {
      const id = await create();
      const answer = await written(reply, id);
      reply.status(201);
      return answer;
    },

    /** PUT or PATCH (or any write of one record): runs it, and answers the record as it is now. */
    async updated(reply: FastifyReply, id: number, update: () => Promise<unknown>): Promise<Answer> {
      await update();
      return written(reply, id);
    },

    /** DELETE: answers the record as it was before the delete ran (no version: it has none now). */
    async deleted(id: number, remove: () => Promise<unknown>): Promise<Answer> {
      const answer = await kind.represent(await found(id));
      await remove();
      return answer;
    },
  };
}
