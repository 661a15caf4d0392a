/** Control characters, and the invisible marks that make a name read differently than it is (bidi overrides). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;
const MAX_FILENAME_LENGTH = 200;

/** The extension of a name: lower case, letters and digits only, '' when there is none. */
export function extensionOf(filename: string): string {
  const match = /\.([A-Za-z0-9]{1,16})$/.exec(filename);
  return match ? match[1].toLowerCase() : '';
}

/**
 * The uploaded file's name as the record keeps it: its last path segment, without control or
 * direction characters, without leading dots, at most 200 characters (keeping the extension).
 * It is only ever displayed or sent back; stored files get generated names.
 */
export function sanitiseFilename(raw: string | undefined): string {
  let name = (raw ?? '').normalize('NFC').replace(UNSAFE_CHARACTERS, '');
  name = name.split(/[/\\]/).pop() ?? '';
  name = name
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[.\s]+/, '');
  if (name.length > MAX_FILENAME_LENGTH) {
    const extension = extensionOf(name);
    const suffix = extension ? `.${extension}` : '';
    name = name.slice(0, MAX_FILENAME_LENGTH - suffix.length).trimEnd() + suffix;
  }
  return name || 'file';
}
