import type { FastifyRequest } from 'fastify';
import type { MultipartFile } from '@fastify/multipart';
import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import { AppError, BadRequestError, errorField, PayloadTooLargeError, ValidationError } from '../../infra/errors.js';
import type { FileStorage, PendingFile } from '../../infra/file-storage/port.js';
import { sniffMimeType } from '../../infra/file-storage/sniff.js';
import { boundaryOf, ClosingDelimiterWatch } from './closing-delimiter.js';
import { extensionOf, sanitiseFilename } from '../../infra/file-storage/filename.js';

export interface ReceivedUpload {
  pending: PendingFile;
  /** The form field the file came in (one of the accepted names). */
  field: string;
  filename: string;
  extension: string;
  mimeType: string;
  /** The text fields of the form, by name. */
  fields: Record<string, string>;
}

function tooLarge(maxBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`The file is larger than the upload limit of ${maxBytes} bytes.`);
}

/** Multipart failures are the client's (413 for limits, 400 for a malformed body); disk errors stay 5xx. */
function clientError(error: unknown, maxBytes: number): unknown {
  if (error instanceof AppError) return error;
  const code = errorField(error, 'code');
  const statusCode = errorField(error, 'statusCode');
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge(maxBytes);
  if (statusCode === 413) return new PayloadTooLargeError('The upload has too many parts, files or fields.');
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500)
    return new BadRequestError('The multipart body could not be read.');
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return error;
  return new BadRequestError('The multipart body could not be read.');
}

function endedEarly(): BadRequestError {
  return new BadRequestError('The multipart body ended inside a file, before its closing boundary.');
}

type FileStream = MultipartFile['file'];

/** The error stays in the stream's state for its reader (see fileOf); nothing more to do here. */
function keptInTheStream(): void {}

/**
 * The part's file as a stream that ends, or fails, whatever happens to the body. A body that
 * ends inside a file part leaves busboy's file stream destroyed (or errored) without an end,
 * and a pipeline attached to it then waited for ever: the request was never answered. Such a
 * file is refused at once, and one cut short later fails whoever reads it.
 *
 * The failure is kept in the stream (`errored`), where the pipeline or `finished` that reads
 * it finds it, even when it happened before they were attached. It must never be emitted to
 * nobody: the storage awaits its folders before it pipes, the route may already have answered
 * (a later part refused), and an 'error' event without a listener is an uncaught exception
 * that stopped the whole process.
 */
function fileOf(part: MultipartFile, connectionLost: AbortSignal): FileStream {
  const file = part.file;
  if (file.destroyed && !file.readableEnded) throw endedEarly();
  const guarded = new PassThrough();
  guarded.on('error', keptInTheStream);
  const fail = () => {
    if (!file.readableEnded) guarded.destroy(endedEarly());
  };
  file.once('error', fail);
  file.once('close', fail);
  // Past the size limit busboy drops the file's bytes until the part ends, and
  // @fastify/multipart no longer destroys it when the connection is lost: without this, the
  // upload waited for ever with its partial file open.
  connectionLost.addEventListener('abort', () => file.destroy(), { once: true });
  // The size limit's flag is busboy's, read once the file has ended.
  Object.defineProperty(guarded, 'truncated', { get: () => file.truncated });
  file.pipe(guarded);
  // The reader gets busboy's stream type: what it reads of it, a Readable and its `truncated`
  // flag (defined above), the PassThrough has; TypeScript cannot see the defined property.
  return guarded as unknown as FileStream;
}

async function drain(part: MultipartFile, connectionLost: AbortSignal): Promise<void> {
  const file = fileOf(part, connectionLost);
  file.resume();
  await finished(file);
}

/** A refusal of the form's content (a missing file, a field too long): 400 naming the field. */
function invalid(field: string, message: string): ValidationError {
  return ValidationError.field(field, message, 400);
}

/**
 * Reads a multipart upload (the asset library's, a media's): the first file part whose field is
 * one of `fileFields` is streamed to the storage's temporary area (never held in memory); text
 * fields are collected. Any refusal discards the temporary file, so a failed upload leaves
 * nothing behind. Limits on the parts are @fastify/multipart's, registered by the surface.
 */
export async function receiveUpload(
  request: FastifyRequest,
  storage: FileStorage,
  fileFields: readonly string[],
  maxBytes: number,
): Promise<ReceivedUpload> {
  if (!request.isMultipart()) throw invalid(fileFields[0], 'Send the file as multipart/form-data.');
  let received: Omit<ReceivedUpload, 'fields'> | null = null;
  let extraFiles = 0;
  const fields: Record<string, string> = {};
  const boundary = boundaryOf(request.headers['content-type']);
  if (!boundary) throw new BadRequestError('The multipart body has no boundary.');
  const closing = new ClosingDelimiterWatch(boundary);
  // A request whose connection closed before its body was complete.
  const lost = new AbortController();
  const onClose = () => {
    if (!request.raw.complete) lost.abort();
  };
  // Closed already (while the route looked the asset up): the parser would wait for ever.
  if (request.raw.destroyed && !request.raw.complete) throw endedEarly();
  request.raw.once('close', onClose);
  try {
    closing.watch(request.raw);
    for await (const next of request.parts()) {
      if (next.type === 'field') {
        if (next.valueTruncated) throw invalid(next.fieldname, `${next.fieldname} is too long.`);
        fields[next.fieldname] = String(next.value);
        continue;
      }
      const part = next;
      if (received || !fileFields.includes(part.fieldname)) {
        extraFiles++;
        await drain(part, lost.signal);
        continue;
      }
      const filename = sanitiseFilename(part.filename);
      const extension = extensionOf(filename);
      const pending = await storage.receive(fileOf(part, lost.signal), extension);
      received = {
        pending,
        field: part.fieldname,
        filename,
        extension,
        mimeType: await sniffMimeType(pending.head, extension),
      };
      if (pending.truncated) throw tooLarge(maxBytes);
    }
    if (!closing.seen) throw new BadRequestError('The multipart body ended before its closing boundary.');
    if (!received) throw invalid(fileFields[0], `A file is required in the "${fileFields[0]}" field.`);
    if (extraFiles > 0) throw invalid(fileFields[0], 'Send exactly one file.');
    if (received.pending.size === 0) throw invalid(fileFields[0], 'The file is empty.');
    return { ...received, fields };
  } catch (error) {
    await received?.pending.discard();
    throw clientError(error, maxBytes);
  } finally {
    request.raw.off('close', onClose);
  }
}
