import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import type { ByteRange, FileStorage } from '../../infra/file-storage/port.js';
import { requestedRange } from './byte-range.js';
import { ASSET_FILE_CSP, contentDisposition, servingPolicy, type ServingPolicy } from './file-policy.js';

/**
 * Serving an uploaded file (an asset's, a media's original): the headers that keep a browser
 * from running it, then its bytes, whole or the one range asked for.
 */

/** nosniff, the sandboxing CSP and the disposition: how a file of `mediaType` is served. */
export function uploadedFileHeaders(reply: FastifyReply, mediaType: string, filename: string): ServingPolicy {
  const policy = servingPolicy(mediaType);
  reply
    .header('X-Content-Type-Options', 'nosniff')
    .header('Content-Security-Policy', ASSET_FILE_CSP)
    .header('Content-Disposition', contentDisposition(policy.disposition, filename));
  return policy;
}

/**
 * Streams the stored file of `size` bytes: the single `Range: bytes=...` asked for with 206 (416
 * outside the file), else the whole file.
 */
export function sendStoredFile(
  request: FastifyRequest,
  reply: FastifyReply,
  {
    storage,
    storedName,
    size,
    contentType,
  }: { storage: FileStorage; storedName: string; size: number; contentType: string },
): FastifyReply {
  return sendBytes(request, reply, { size, contentType, open: (range) => storage.openRead(storedName, range) });
}

/**
 * Streams `size` bytes that `open` reads (a stored file, a backup archive): the single
 * `Range: bytes=...` asked for with 206 (416 outside them), else all of them.
 */
export function sendBytes(
  request: FastifyRequest,
  reply: FastifyReply,
  { size, contentType, open }: { size: number; contentType: string; open(range?: ByteRange): Readable },
): FastifyReply {
  reply.header('Accept-Ranges', 'bytes');
  const range = requestedRange(request.headers.range, size);
  if (range === 'unsatisfiable') return reply.status(416).header('Content-Range', `bytes */${size}`).send();
  reply.header('Content-Type', contentType);
  if (range) {
    return reply
      .status(206)
      .header('Content-Range', `bytes ${range.start}-${range.end}/${size}`)
      .header('Content-Length', range.end - range.start + 1)
      .send(open(range));
  }
  return reply.header('Content-Length', size).send(open());
}
