import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { answerIn } from '../http/documented-responses.js';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import type { RouteRuntime } from '../http/routes-plugin.js';
import { recordClick } from '../../commands/directory/handlers.js';
import { NotFoundError } from '../../infra/errors.js';
import { findVisibleDatabase, findVisibleDatabaseDoc } from '../../queries/directory/databases.js';
import type { DatabaseDoc } from '../../contracts/directory/documents.js';
import { findLibrary } from '../../queries/directory/library.js';
import { renderDetailsPage, renderNotFoundPage } from './details-page.js';
import { ErrorBody } from './schemas.js';
import { openUrl } from './urls.js';

const HandleParams = Type.Object({ handle: Type.String({ minLength: 1, maxLength: 200 }) });
const tags = ['directory'];

/** Where a click goes: behind the proxy prefix, appended as it is, when the database is proxied. */
export function destinationOf(db: Pick<DatabaseDoc, 'url' | 'proxied'>, proxyPrefix: string | undefined): string {
  return db.proxied && proxyPrefix ? `${proxyPrefix}${db.url}` : db.url;
}

/** The 404 of the patron-facing links: a page for a browser, JSON for anyone else (notFound). */
const NOT_FOUND = answerIn('Not found, or hidden: an HTML page when Accept names text/html, else JSON.', {
  'text/html': Type.String({ description: 'The "Database not found" page.' }),
  'application/json': ErrorBody,
});
/** The details page is HTML; the 400 of a handle past 200 characters is the error handler's JSON. */
const INVALID = answerIn('The handle is not valid.', { 'application/json': ErrorBody });

function wantsHtml(request: FastifyRequest): boolean {
  return /text\/html/i.test(request.headers.accept ?? '');
}

async function notFound(request: FastifyRequest, reply: FastifyReply, runtime: RouteRuntime): Promise<FastifyReply> {
  if (!wantsHtml(request)) throw new NotFoundError('Database not found.');
  const library = await findLibrary(runtime.documents);
  return reply
    .status(404)
    .type('text/html; charset=utf-8')
    .send(renderNotFoundPage(library?.brand_color ?? '#0b5394'));
}

/**
 * The patron-facing links of every database record: the tracked redirect (no token: patrons
 * follow it from anywhere) and the HTML details page. Hidden and unknown databases are 404.
 */
export const directoryLinkRoutes: RoutesPlugin = async (app, { runtime }) => {
  app.get(
    '/go/:handle',
    {
      schema: {
        tags,
        summary: 'Open a database (tracked redirect)',
        description:
          "302 to the database's URL, behind the library's proxy prefix when the database is proxied; each request is counted as a click (DatabaseLinkClicked). No token needed.",
        params: HandleParams,
        response: {
          302: Type.Null({
            description: 'Location is the database address.',
            headers: {
              'Cache-Control': Type.String({
                description: '`no-store`: every click reaches the server, to be counted.',
              }),
            },
          }),
          404: ErrorBody,
        },
      },
      config: { documentedResponses: { 404: NOT_FOUND } },
    },
    async (request, reply) => {
      const { handle } = request.params;
      const db = await findVisibleDatabaseDoc(runtime.documents, handle);
      if (!db) return notFound(request, reply, runtime);
      const library = await findLibrary(runtime.documents);
      // HEAD is what link checkers and prefetchers send; only a followed link is a click.
      if (request.method !== 'HEAD') await recordClick(runtime.commandContext(null, request.id), db.handle);
      reply.header('Cache-Control', 'no-store');
      reply.header('Referrer-Policy', 'no-referrer-when-downgrade');
      return reply.redirect(destinationOf(db, library?.proxy_prefix), 302);
    },
  );

  app.get(
    '/databases/:handle',
    {
      schema: {
        tags,
        summary: "A database's details page (HTML)",
        description:
          'Name, description, subjects, types, access and an open link through the tracked redirect. No token needed.',
        params: HandleParams,
        produces: ['text/html'],
        response: { 200: Type.String({ description: 'HTML page.' }), 404: ErrorBody },
      },
      config: { documentedResponses: { 400: INVALID, 404: NOT_FOUND } },
    },
    async (request, reply) => {
      const { handle } = request.params;
      const db = await findVisibleDatabase(runtime.documents, handle);
      if (!db) return notFound(request, reply, runtime);
      const library = await findLibrary(runtime.documents);
      const html = renderDetailsPage(
        db,
        { name: library?.name ?? '', brand_color: library?.brand_color ?? '#0b5394' },
        openUrl(runtime.config.baseUrl, db.handle),
      );
      return reply.type('text/html; charset=utf-8').send(html);
    },
  );
};
