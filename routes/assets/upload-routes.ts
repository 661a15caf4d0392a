import type { AssetRoutesOptions } from './options.js';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import { replaceAssetFile, uploadAsset } from '../../commands/assets/asset-handlers.js';
import { invalid } from '../../commands/assets/rules.js';
import { requireAssetWriter } from './access.js';
import { receiveUpload, type ReceivedUpload } from '../http/multipart-upload.js';
import { assetAnswers } from './representation.js';
import {
  AssetEnvelope,
  ErrorEnvelope,
  errorResponses,
  IdParams,
  multipartForm,
  SESSION_SECURITY,
  TAG,
} from './schemas.js';

const UPLOAD_FILE_FIELDS = ['file[0]', 'file', 'file[]'];
const REPLACE_FILE_FIELDS = ['file', 'file[0]'];

function folderIdField(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '' || value.trim() === 'null') return null;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw invalid('folder_id', 'folder_id must be a folder id.');
  return Number(value);
}

function fileInfo(upload: ReceivedUpload) {
  return { filename: upload.filename, extension: upload.extension, mime_type: upload.mimeType };
}

export const uploadRoutes: RoutesPlugin<AssetRoutesOptions> = async (app, { runtime, storage }) => {
  const baseUrl = runtime.config.baseUrl;
  const maxBytes = runtime.config.maxUploadBytes;
  const uploadErrors = { ...errorResponses, 413: ErrorEnvelope };
  const assets = assetAnswers(runtime.documents, baseUrl);

  app.post(
    '',
    {
      schema: {
        tags: [TAG],
        security: SESSION_SECURITY,
        summary: 'Upload an asset',
        description:
          'multipart/form-data with the file in `file[0]`, optional `o:name` (the title; defaults to the file name) and optional `folder_id`. ' +
          `Files larger than MAX_UPLOAD_BYTES (default ${50 * 1024 * 1024} bytes) get 413. The media type is sniffed from the content.`,
        consumes: ['multipart/form-data'],
        body: multipartForm(
          {
            'file[0]': { type: 'string', format: 'binary', description: 'The file.' },
            'o:name': { type: 'string', description: 'The title (metadata.title); defaults to the file name.' },
            folder_id: { type: 'string', description: 'Id of the folder to file the asset in.' },
          },
          ['file[0]'],
        ),
        response: { 201: AssetEnvelope, ...uploadErrors },
      },
    },
    async (request, reply) => {
      const user = await requireAssetWriter(request);
      const upload = await receiveUpload(request, storage, UPLOAD_FILE_FIELDS, maxBytes);
      try {
        const name = upload.fields['o:name']?.trim();
        const ctx = runtime.commandContext(user.id, request.id);
        return await assets.created(reply, () =>
          uploadAsset(ctx, {
            storage,
            pending: upload.pending,
            input: {
              ...fileInfo(upload),
              title: name || upload.filename,
              folder_id: folderIdField(upload.fields.folder_id),
            },
          }),
        );
      } finally {
        await upload.pending.discard();
      }
    },
  );

  app.put(
    '/:id/replace',
    {
      schema: {
        tags: [TAG],
        security: SESSION_SECURITY,
        summary: "Replace an asset's file",
        description:
          'multipart/form-data with one `file` field. The new file must keep the original extension (400 with the reason otherwise). ' +
          'The asset keeps its id, title and folders, and its canonical_url serves the new content.',
        consumes: ['multipart/form-data'],
        body: multipartForm(
          { file: { type: 'string', format: 'binary', description: 'The new file, with the same extension.' } },
          ['file'],
        ),
        params: IdParams,
        response: { 200: AssetEnvelope, ...uploadErrors },
      },
    },
    async (request, reply) => {
      const user = await requireAssetWriter(request);
      const id = request.params.id;
      await assets.found(id);
      const upload = await receiveUpload(request, storage, REPLACE_FILE_FIELDS, maxBytes);
      try {
        await replaceAssetFile(runtime.commandContext(user.id, request.id), {
          storage,
          id,
          pending: upload.pending,
          info: fileInfo(upload),
        });
      } finally {
        await upload.pending.discard();
      }
      return assets.written(reply, id);
    },
  );
};
