import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { FastifyRequest } from 'fastify';
import type { CommandContext } from '../../commands/command-context.js';
import { createMediaWithFile } from '../../commands/platform/media-file-handlers.js';
import { MediaBody } from '../../commands/platform/schemas.js';
import { ValidationError } from '../../infra/errors.js';
import type { FileStorage } from '../../infra/file-storage/port.js';
import { receiveUpload } from '../http/multipart-upload.js';

/**
 * POST /api/media as multipart/form-data, as Omeka S takes it (CONTRACT.md section 9): a `data`
 * part holding the JSON body (`o:item`, `o:title`, ..., `o:ingester: "upload"`, `file_index`)
 * and the file as `file[N]`, N the body's `file_index` (0 by default). The file streams to the
 * storage's temporary area and is kept only once the media is recorded with it.
 */

/** The `data` part: the media's JSON body and the upload's own keys. */
export const MediaUploadData = Type.Composite(
  [
    MediaBody.schema,
    Type.Object({
      'o:ingester': Type.Optional(Type.Literal('upload', { description: 'The only ingester taken: `upload`.' })),
      file_index: Type.Optional(
        Type.Integer({ minimum: 0, maximum: 9, description: 'The file is the part `file[N]`. Default 0.' }),
      ),
    }),
  ],
  { additionalProperties: true },
);

/** What the OpenAPI document shows of the form. */
export const MEDIA_UPLOAD_FORM = Type.Object(
  {
    data: Type.String({
      description:
        'The media as JSON: `o:item` (required), `o:title` (default: the file name), `o:text`, `o:is_public`, `o:ingester: "upload"`, `file_index` (default 0).',
    }),
    'file[0]': Type.String({ format: 'binary', description: 'The file, as `file[N]` for `file_index` N.' }),
  },
  { required: ['data', 'file[0]'] },
);

const FILE_FIELDS = ['file', ...Array.from({ length: 10 }, (_, n) => `file[${n}]`)];

/** The `data` part read as the media's body; a 422 naming the first problem otherwise. */
function uploadData(text: string | undefined): Static<typeof MediaUploadData> {
  if (text === undefined) throw ValidationError.field('data', 'The form needs a "data" part holding the JSON body.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw ValidationError.field('data', 'The "data" part is not JSON.');
  }
  if (Value.Check(MediaUploadData, parsed)) return parsed;
  const first = Value.Errors(MediaUploadData, parsed).First();
  const field = first?.path.replace(/^\//, '').split('/')[0] || 'data';
  throw ValidationError.field(field, first ? `${first.message}.` : 'The "data" part is not a media body.');
}

/** Creates a media with the uploaded file; answers its id. */
export async function createUploadedMedia(
  request: FastifyRequest,
  ctx: CommandContext,
  { storage, maxBytes }: { storage: FileStorage; maxBytes: number },
): Promise<number> {
  const upload = await receiveUpload(request, storage, FILE_FIELDS, maxBytes);
  try {
    const data = uploadData(upload.fields.data);
    const index = data.file_index ?? 0;
    if (upload.field !== `file[${index}]` && !(upload.field === 'file' && index === 0))
      throw ValidationError.field(
        'file_index',
        `file_index ${index} names the part "file[${index}]", which is not in the form.`,
      );
    if (data['o:item'] === undefined) throw ValidationError.field('o:item', 'This field is required.');
    const fields = MediaBody.create(data, { title: upload.filename });
    return await createMediaWithFile(ctx, {
      storage,
      fields,
      upload: {
        pending: upload.pending,
        filename: upload.filename,
        extension: upload.extension,
        mimeType: upload.mimeType,
      },
    });
  } finally {
    await upload.pending.discard();
  }
}
