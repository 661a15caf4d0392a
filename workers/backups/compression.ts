import { extname } from 'node:path';

/** Formats that are compressed already: deflating them again costs time and saves nothing. */
const ALREADY_COMPRESSED = new Set([
  'jpg',
  'jpeg',
  'png',
  'gif',
  'webp',
  'avif',
  'heic',
  'heif',
  'jp2',
  'jxl',
  'mp4',
  'm4v',
  'mov',
  'mkv',
  'webm',
  'avi',
  'mpg',
  'mpeg',
  'ogv',
  'mp3',
  'm4a',
  'aac',
  'ogg',
  'oga',
  'opus',
  'flac',
  'zip',
  'gz',
  'tgz',
  'bz2',
  'xz',
  'zst',
  '7z',
  'rar',
  'br',
  'lz4',
  'jar',
  'pdf',
  'docx',
  'xlsx',
  'pptx',
  'odt',
  'ods',
  'odp',
  'epub',
  'woff',
  'woff2',
]);

/** Stored (not deflated) for already-compressed formats; everything else is deflated at level 1. */
export function storeUncompressed(name: string): boolean {
  return ALREADY_COMPRESSED.has(extname(name).slice(1).toLowerCase());
}

/** zlib level 1: most of the size win of deflate at a fraction of its time. */
export const DEFLATE_LEVEL = 1;
