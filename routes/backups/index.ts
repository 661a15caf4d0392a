import fp from 'fastify-plugin';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { RoutesOptions, RoutesPlugin } from '../http/routes-plugin.js';
import { KEY_OR_SESSION, type Principal } from '../http/auth.js';
import { installJsonBodyParser } from '../http/json-body.js';
import { refuseOtherMethods } from '../http/method-not-allowed.js';
import { deleteBackup } from '../../commands/backups/handlers.js';
import { CreateBackupBody, includesFrom } from '../../commands/backups/schemas.js';
import { isAdmin } from '../../contracts/users/roles.js';
import { AppError, ForbiddenError, NotFoundError } from '../../infra/errors.js';
import { findBackup, listBackups } from '../../queries/backups/backups.js';
import type { BackupService } from '../../contracts/backups/backup-service.js';
import { BackupRecord, representBackup, Status } from './representation.js';

const TAG = 'backups';
const SECURITY: { [scheme: string]: string[] }[] = [{ apiKeyIdentity: [], apiKeyCredential: [] }, { session: [] }];
const PERMISSION = 'Only a Global Administrator or a Supervisor may manage backups.';

const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
const ErrorBody = Type.Object({ errors: Type.Record(Type.String(), Type.Unknown()) });

/** The backups routes take the backups module's worker as a BackupService (app/modules/backups.ts wires it). */
interface BackupRoutesOptions extends RoutesOptions {
  backups: BackupService;
}

/**
 * /api/backups: Global Administrators and Supervisors only, by API key or session (seed 002).
 * Not encapsulated (fastify-plugin), so the app attached to the backups module's worker (what
 * it exports the API through) is the app itself: an encapsulated instance cannot be made ready
 * again once the app has started.
 */
export function backupRoutes(backups: BackupService): RoutesPlugin {
  const withApiSource: RoutesPlugin = async (app, { runtime }) => {
    backups.attach(app);
    await app.register(backupResourceRoutes, { runtime, backups, prefix: '/api/backups' });
  };
  return fp(withApiSource);
}

const backupResourceRoutes: RoutesPlugin<BackupRoutesOptions> = async (app, { runtime, backups }) => {
  // Every flag defaults to true, so an empty body means "everything", also when a client
  // labels it JSON (an empty JSON body is refused elsewhere).
  installJsonBodyParser(app, { emptyBody: () => ({}) });
  const baseUrl = runtime.config.baseUrl;
  const callers = new WeakMap<FastifyRequest, Principal>();

  /** Permission first, before the body or id is looked at: nobody else learns anything here. */
  async function requireBackupAdmin(request: FastifyRequest): Promise<void> {
    const user = await request.principal(KEY_OR_SESSION);
    if (!user || !isAdmin(user.role)) throw new ForbiddenError(PERMISSION);
    callers.set(request, user);
    if (request.body === undefined || request.body === null) request.body = {};
  }
  /** The caller requireBackupAdmin let through (it runs first on every route here). */
  function caller(request: FastifyRequest): Principal {
    const user = callers.get(request);
    if (!user) throw new ForbiddenError(PERMISSION);
    return user;
  }
  const errors = { 403: ErrorBody, 422: ErrorBody };

  app.get(
    '',
    {
      preValidation: requireBackupAdmin,
      schema: {
        tags: [TAG],
        summary: 'List backups',
        description:
          'Every backup record, newest first. `page` and `per_page` are ignored: the full list is always returned, and `Platform-Total-Results` equals its length.',
        security: SECURITY,
        querystring: Type.Object({ status: Type.Optional(Status) }),
        response: {
          200: Type.Array(BackupRecord, {
            headers: { 'Platform-Total-Results': Type.Integer({ description: 'The length of the list.' }) },
          }),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { status } = request.query;
      const records = await listBackups(runtime.documents, status);
      reply.header('Platform-Total-Results', String(records.length));
      return records.map((doc) => representBackup(doc, baseUrl, backups.archiveLocation(doc)));
    },
  );

  app.get(
    '/:id',
    {
      preValidation: requireBackupAdmin,
      schema: {
        tags: [TAG],
        summary: 'Read one backup',
        security: SECURITY,
        params: IdParams,
        response: { 200: BackupRecord, 404: ErrorBody, ...errors },
      },
    },
    async (request) => {
      const record = await findBackup(runtime.documents, request.params.id);
      if (!record) throw new NotFoundError('Backup not found.');
      return representBackup(record, baseUrl, backups.archiveLocation(record));
    },
  );

  app.post(
    '',
    {
      preValidation: requireBackupAdmin,
      schema: {
        tags: [TAG],
        summary: 'Create a backup',
        description:
          "Writes a zip archive into the archives' store (DATA_DIR/backups, or the PostgreSQL database of FILES_URL shared by every server) and answers when it is finished, with the complete record (201). If the archive cannot be written, the record is kept as `failed` and the answer is a 500 saying why. If the job queue (Redis, when REDIS_URL is set) is unavailable, the answer is a 503 within seconds and no record is made; try again later (should the queue go away after the backup was recorded, the record is kept as `failed`, saying why). Retention cleanup then keeps the newest BACKUP_RETENTION complete backups.",
        security: SECURITY,
        body: CreateBackupBody,
        response: { 201: BackupRecord, 500: ErrorBody, 503: ErrorBody, ...errors },
      },
    },
    async (request, reply) => {
      const user = caller(request);
      const order = {
        userId: user.id,
        requestId: request.id,
        includes: includesFrom(request.body),
        logger: request.log,
      };
      // Creation is synchronous: the worker's job is waited for (at most its timeout).
      const { outcome, record } = await backups.make(order);
      if (outcome.status !== 'complete' || !record || record.status !== 'complete') {
        throw new AppError(`Backup failed: ${outcome.error ?? record?.error ?? 'unknown reason.'}`, 500);
      }
      return reply.status(201).send(representBackup(record, baseUrl, backups.archiveLocation(record)));
    },
  );

  app.delete(
    '/:id',
    {
      preValidation: requireBackupAdmin,
      schema: {
        tags: [TAG],
        summary: 'Delete a backup',
        description:
          'Removes the archive from its store (DATA_DIR/backups, or the database of FILES_URL, from any server) and the record; answers with the deleted record.',
        security: SECURITY,
        params: IdParams,
        response: { 200: BackupRecord, 404: ErrorBody, ...errors },
      },
    },
    async (request) => {
      const id = request.params.id;
      const record = await findBackup(runtime.documents, id);
      if (!record) throw new NotFoundError('Backup not found.');
      await deleteBackup(runtime.commandContext(caller(request).id, request.id), id);
      await backups.removeArchive(record);
      return representBackup(record, baseUrl, backups.archiveLocation(record));
    },
  );

  refuseOtherMethods(app, '', ['GET', 'POST']);
  refuseOtherMethods(app, '/:id', ['GET', 'DELETE']);
};
