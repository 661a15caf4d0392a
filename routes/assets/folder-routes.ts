import type { RoutesPlugin } from '../http/routes-plugin.js';
import { CREATED_ETAG_CONFIG, IF_MATCH_CONFIG, ifMatchOf } from '../http/conditional/resource-version.js';
import { createFolder, deleteFolder, updateFolder } from '../../commands/assets/folder-handlers.js';
import { FolderCreateBody, FolderUpdateBody } from '../../commands/assets/schemas.js';
import { folderTree } from '../../queries/assets/folders.js';
import { requireAssetWriter } from './access.js';
import { folderAnswers, representFolder } from './representation.js';
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
  const folders = folderAnswers(runtime.documents);

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
    async () => ({ status: 'success' as const, folders: (await folderTree(runtime.documents)).map(representFolder) }),
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
      return folders.created(reply, () => createFolder(runtime.commandContext(user.id, request.id), request.body));
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
    async (request, reply) => folders.read(reply, request.params.id),
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
      const ctx = runtime.commandContext(user.id, request.id);
      return folders.updated(reply, id, () =>
        updateFolder(ctx, { id, input: request.body, ifMatch: ifMatchOf(request) }),
      );
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
