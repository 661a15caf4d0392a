const TEXT_TYPES_BY_EXTENSION: Record<string, string> = {
  txt: 'text/plain',
  csv: 'text/csv',
  md: 'text/markdown',
  json: 'application/json',
  xml: 'application/xml',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
};

/** Text that may be cut in the middle of a multi-byte character at the end of the head. */
function looksLikeText(head: Buffer): boolean {
  if (head.includes(0)) return false;
  for (let cut = 0; cut < 4 && cut < head.length; cut++) {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, head.length - cut));
      return true;
    } catch {
      // try again without the last bytes
    }
  }
  return head.length === 0;
}

/**
 * A TIFF's byte-order mark and magic number (`II*\0` or `MM\0*`). file-type follows the TIFF's
 * first directory to tell its kind, and answers nothing when that directory lies past the head:
 * libtiff and libvips write it after the pixels, so most large TIFFs look so.
 */
function isTiff(head: Buffer): boolean {
  if (head.length < 4) return false;
  const mark = head.subarray(0, 4).toString('latin1');
  return mark === 'II*\u0000' || mark === 'MM\u0000*';
}

function isSvg(head: Buffer): boolean {
  return /<svg[\s>]/i.test(head.toString('utf8'));
}

/**
 * The media type of a file from its leading bytes (file-type), never from what the client
 * claimed. Text formats have no magic number: text is told apart by its extension, except SVG
 * which is recognised by its content so a renamed SVG is still known to be one.
 */
export async function sniffMimeType(head: Buffer, extension: string): Promise<string> {
  // Imported on the first upload, not at start: file-type and its readers are dozens of modules.
  const { fileTypeFromBuffer } = await import('file-type');
  const detected = await fileTypeFromBuffer(head);
  if (detected) return detected.mime === 'application/xml' && isSvg(head) ? 'image/svg+xml' : detected.mime;
  if (isTiff(head)) return 'image/tiff';
  if (!looksLikeText(head) || head.length === 0) return 'application/octet-stream';
  if (isSvg(head)) return 'image/svg+xml';
  return TEXT_TYPES_BY_EXTENSION[extension] ?? 'text/plain';
}
