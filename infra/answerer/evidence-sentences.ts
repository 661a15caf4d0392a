/** Sentences of evidence text, and which of them are worth quoting at all. */

export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[\p{Lu}\p{N}"'(])|\n+/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** A label and a colon opening a line: `Tags: maps, news`, `Date created: 1920`, or `Note: the room is closed.` */
const LABELLED = /^([\p{L}][\p{L}\p{N} _/-]{0,30}):(?:\s+(.*))?$/su;
/** Labels of metadata fields (Dublin Core's among them), which are never the answer to a question. */
const METADATA_LABELS = new Set(
  (
    'title|alternative title|tags|tag|keywords|subject|subjects|category|categories|creator|contributor|author|authors|' +
    'date|date created|date issued|date modified|published|posted|filed under|format|type|identifier|rights|license|licence|' +
    'language|publisher|source|coverage|relation|medium|dimensions|extent|credit line|accession number|object number|' +
    'inventory number|call number|shelf mark|isbn|issn|doi|url|link|collection|item set|item sets|site|sites'
  ).split('|'),
);
/** A value that is a list of a few short terms (`maps, news, 1755`) rather than a sentence. */
const TERM_LIST = /^[^.!?]{0,200}$/;
/** What pages repeat around their content: navigation, sharing, legal lines. */
const BOILERPLATE =
  /^(read more|continue reading|click here|share (this|on)|posted (in|on|by)|filed under|all rights reserved|copyright|©|back to top|skip to)/i;
const MIN_WORDS = 3;

/**
 * Whether a sentence can stand in an answer: not a metadata line (a field label and its value,
 * as the index's text carries for tags), not boilerplate, and long enough to say something.
 */
export function isQuotable(sentence: string): boolean {
  if (isMetadataLine(sentence) || BOILERPLATE.test(sentence)) return false;
  const words = sentence.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word));
  return words.length >= MIN_WORDS;
}

/**
 * A line that is a metadata field: a known metadata label, or any short label whose value is a
 * list of terms with commas and no sentence in it (`Materials: oak, brass`).
 */
export function isMetadataLine(line: string): boolean {
  const labelled = LABELLED.exec(line.trim());
  if (!labelled) return false;
  const label = labelled[1].trim().toLowerCase();
  const value = (labelled[2] ?? '').trim();
  if (METADATA_LABELS.has(label)) return true;
  return label.split(/\s+/).length <= 3 && (value === '' || (value.includes(',') && TERM_LIST.test(value)));
}
