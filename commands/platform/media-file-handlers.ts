import type { FileStorage, PendingFile } from '../../infra/file-storage/port.js';
import { IIIF_IMAGE_TYPES, uprightSize } from '../../infra/images/image-size.js';
import { ValidationError } from '../../infra/errors.js';
import type { CommandContext } from '../command-context.js';
import { commitThen } from '../file-commit.js';
import { handleCommand, toDomainEvents } from '../handle-command.js';
import { foldEvents } from '../decider.js';
import { idFor } from '../sequence.js';
import type { MediaFields } from '../../contracts/platform/fields.js';
import { MEDIA } from './handlers.js';
import { mediaStream } from './kinds.js';
import { mediaFileDecider, type MediaFileState } from './media-file-decider.js';
import type { Derivatives, MediaFile } from '../../contracts/platform/media-files.js';

/** What the route (or the fixture import) learnt of an uploaded file besides what the storage measured. */
export interface UploadedMediaFile {
  pending: PendingFile;
  /** The uploaded name, sanitised: `o:source`. */
  filename: string;
  extension: string;
  /** Sniffed from the bytes. */
  mimeType: string;
}

/** A media created with its file; `givenId` is the fixture's id. */
export interface CreateMediaWithFileCall {
  storage: FileStorage;
  upload: UploadedMediaFile;
  fields: MediaFields;
  givenId?: number;
}

/**
 * Creates a media with its file in one append (MediaCreated and MediaFileIngested): the file is
 * moved to its stored name, an image's upright size is read from its header, and both are
 * recorded; a refusal removes the stored file again, so nothing is left half written.
 */
export async function createMediaWithFile(
  ctx: CommandContext,
  { storage, upload, fields, givenId }: CreateMediaWithFileCall,
): Promise<number> {
  await MEDIA.checkReferences(ctx, fields, null);
  if (givenId !== undefined && (await ctx.eventStore.readLastEvent(MEDIA.stream(givenId))))
    throw ValidationError.field('o:id', `${MEDIA.label} ${givenId} already exists.`);
  const { pending } = upload;
  return commitThen(storage, pending, async () => {
    const path = IIIF_IMAGE_TYPES.has(upload.mimeType) ? await storage.localPath(pending.storedName) : null;
    const file: MediaFile = {
      stored_name: pending.storedName,
      source: upload.filename,
      extension: upload.extension,
      media_type: upload.mimeType,
      size: pending.size,
      sha256: pending.sha256,
      pixels: path ? await uprightSize(path) : null,
    };
    const id = await idFor(ctx, MEDIA.sequence, givenId);
    await handleCommand(ctx, {
      stream: mediaStream(id),
      decider: mediaFileDecider,
      command: { type: 'CreateMediaWithFile', data: { id, fields, file } },
      newStream: givenId === undefined,
    });
    return id;
  });
}

/** The media's stream folded with its file: what the derivative worker and a regeneration read. */
export async function mediaFileState(ctx: CommandContext, id: number): Promise<MediaFileState> {
  return foldEvents(mediaFileDecider, toDomainEvents(await ctx.eventStore.readStream(mediaStream(id))));
}

/**
 * Records the derivatives made from the file of `sha256`. Answers the stored names now unused:
 * those they replaced, or, when nothing was recorded (made already, the media deleted or given
 * another file meanwhile), the ones just made. The caller removes them.
 */
export async function recordDerivatives(
  ctx: CommandContext,
  { id, sha256, derivatives, replace }: { id: number; sha256: string; derivatives: Derivatives; replace: boolean },
): Promise<{ recorded: boolean; unused: string[] }> {
  const result = await handleCommand(ctx, {
    stream: mediaStream(id),
    decider: mediaFileDecider,
    command: { type: 'RecordDerivatives', data: { sha256, derivatives, replace } },
  });
  const made = result.events.find((event) => event.type === 'MediaDerivativesMade');
  if (made && 'replaced' in made.data) return { recorded: true, unused: made.data.replaced };
  const { large, medium, square, pyramid } = derivatives;
  return { recorded: false, unused: [large, medium, square, pyramid].map((d) => d.stored_name) };
}

/** Records that the image of `sha256` could not be decoded (once; the worker never retries it). */
export async function recordDerivativesFailure(
  ctx: CommandContext,
  { id, sha256, reason }: { id: number; sha256: string; reason: string },
): Promise<void> {
  await handleCommand(ctx, {
    stream: mediaStream(id),
    decider: mediaFileDecider,
    command: { type: 'RecordDerivativesFailure', data: { sha256, reason } },
  });
}
