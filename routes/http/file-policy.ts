/**
 * How a stored file is served. Only types a browser shows without running script are served
 * inline under their own type; SVG keeps its type (so `<img>` works) but is an attachment;
 * everything else is an application/octet-stream attachment. Every response also carries
 * nosniff and a sandboxing CSP, so even a file that a browser renders cannot run script.
 */
const INLINE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/bmp',
  'image/tiff',
  'image/x-icon',
  'image/vnd.microsoft.icon',
  'application/pdf',
  'audio/mpeg',
  'audio/ogg',
  'audio/wav',
  'audio/x-wav',
  'audio/mp4',
  'audio/aac',
  'audio/flac',
  'audio/x-flac',
  'audio/webm',
  'video/mp4',
  'video/webm',
  'video/ogg',
  'video/quicktime',
  'text/plain',
  'text/csv',
]);

/** Types with script-capable renderings that are still useful under their own type as subresources. */
const ATTACHMENT_TYPES = new Set(['image/svg+xml']);

/** Every media type a file may be served as (the OpenAPI document lists them). */
export const SERVED_TYPES: readonly string[] = [...INLINE_TYPES, ...ATTACHMENT_TYPES, 'application/octet-stream'];

export const ASSET_FILE_CSP = "sandbox; default-src 'none'";

export interface ServingPolicy {
  contentType: string;
  disposition: 'inline' | 'attachment';
}

export function servingPolicy(mimeType: string): ServingPolicy {
  if (INLINE_TYPES.has(mimeType)) {
    return {
      contentType: mimeType.startsWith('text/') ? `${mimeType}; charset=utf-8` : mimeType,
      disposition: 'inline',
    };
  }
  if (ATTACHMENT_TYPES.has(mimeType)) return { contentType: mimeType, disposition: 'attachment' };
  return { contentType: 'application/octet-stream', disposition: 'attachment' };
}

/** `inline; filename="..."; filename*=UTF-8''...` with an ASCII fallback that cannot break the header. */
export function contentDisposition(disposition: 'inline' | 'attachment', filename: string): string {
  const ascii = filename.replace(/[^A-Za-z0-9._ -]/g, '_');
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
