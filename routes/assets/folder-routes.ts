import type { FastifyReply } from 'fastify';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import {
  answerVersion,
  CREATED_ETAG_CONFIG,
  IF_MATCH_CONFIG,
  ifMatchOf,
} from '../http/conditional/resource-version.js';
import { createFolder, deleteFolder, updateFolder } from '../../commands/assets/folder-handlers.js';
import { FolderCreateBody, FolderUpdateBody } from '../../commands/assets/schemas.js';
import { NotFoundError } from '../../infra/errors.js';
import { findFolder, folderTree, folderWithChildren, type FolderNode } from '../../queries/assets/folders.js';
import { requireAssetWriter } from './access.js';
import {
  errorResponses,
  FolderEnvelope,
  FoldersEnvelope,
  IdParams,
  MessageEnvelope,
  SESSION_SECURITY,
  TAG,
} from './schemas.js';

export const folderRoutes: RoutesPlugin = async (app, { runtime }) => {
  async function folderOrNotFound(id: number): Promise<FolderNode> {
    const folder = await folderWithChildren(runtime.documents, id);
    if (!folder) throw new NotFoundError('Folder not found.');
    return folder;
  }

  /** The folder's version, for its ETag: its representation (with subfolders) does not carry it. */
  async function answerFolderVersion(reply: FastifyReply, id: number): Promise<void> {
    answerVersion(reply, (await findFolder(runtime.documents, id))?.version);
  }

  app.get(
    '',
    {
      schema: {
        tags: [TAG],
        security: SESSION_SECURITY,
        summary: 'The folder tree',
        description:
          'Top-level folders with their subfolders nested in `children`, each by title. Authors, reviewers and above.',
        response: { 200: FoldersEnvelope, ...errorResponses },
      },
    },
    async () => ({ status: 'success' as const, folders: await folderTree(runtime.documents) }),
  );

  app.post(
    '',
    {
      schema: {
        tags: [TAG],
        security: SESSION_SECURITY,
        summary: 'Create a folder',
        description: "The slug is generated from the title and unique among the folder's siblings. Editors and above.",
        body: FolderCreateBody,
        response: { 201: FolderEnvelope, ...errorResponses },
      },
      config: CREATED_ETAG_CONFIG,
    },
    async (request, reply) => {
      const user = await requireAssetWriter(request);
      const id = await createFolder(runtime.commandContext(user.id, request.id), request.body);
      await answerFolderVersion(reply, id);
      return reply.status(201).send({ status: 'success', folder: await folderOrNotFound(id) });
    },
  );

  app.get(
    '/:id',
    {
      schema: {
        tags: [TAG],
        security: SESSION_SECURITY,
        summary: 'One folder with its subfolders',
        params: IdParams,
        response: { 200: FolderEnvelope, ...errorResponses },
      },
    },
    async (request, reply) => {
      const folder = await folderOrNotFound(request.params.id);
      await answerFolderVersion(reply, folder.id);
      return { status: 'success' as const, folder };
    },
  );

  app.put(
    '/:id',
    {
      config: IF_MATCH_CONFIG,
      schema: {
        tags: [TAG],
        security: SESSION_SECURITY,
        summary: 'Rename or move a folder',
        description:
          'Only the keys present change; `parent_id: null` moves the folder to the top level. A folder cannot be moved under itself or one of its subfolders (400). A new title gives a new slug.',
        params: IdParams,
        body: FolderUpdateBody,
        response: { 200: FolderEnvelope, ...errorResponses },
      },
    },
    async (request, reply) => {
      const user = await requireAssetWriter(request);
      const id = request.params.id;
      await updateFolder(runtime.commandContext(user.id, request.id), {
        id,
        input: request.body,
        ifMatch: ifMatchOf(request),
      });
      await answerFolderVersion(reply, id);
      return { status: 'success' as const, folder: await folderOrNotFound(id) };
    },
  );

  app.delete(
    '/:id',
    {
      config: IF_MATCH_CONFIG,
      schema: {
        tags: [TAG],
        security: SESSION_SECURITY,
        summary: 'Delete a folder',
        description:
          'Deletes the folder and its subfolders. Their assets are kept; they are only taken out of the deleted folders.',
        params: IdParams,
        response: { 200: MessageEnvelope, ...errorResponses },
      },
    },
    async (request) => {
      const user = await requireAssetWriter(request);
      await deleteFolder(runtime.commandContext(user.id, request.id), request.params.id, ifMatchOf(request));
      return { status: 'success' as const, message: 'Folder deleted.' };
    },
  );
};
