/**
 * Entity tags (RFC 9110 §8.8.3) as this API makes and reads them.
 *
 * A single editable resource's tag is strong: `"<version>-<digest>"`, where the version is the
 * resource's own stream version (what an If-Match is checked against, atomically with the write)
 * and the digest covers the body and the viewer (a representation also shows what other records
 * and the caller's role make of it: an item's media, a post's category). A list's tag is weak:
 * `W/"<digest>"`. A header that does not parse matches nothing, never an error.
 */

export interface EntityTag {
  weak: boolean;
  /** The opaque text between the quotes. */
  opaque: string;
}

/** `*`, or the tags a client listed; an unparsable member is dropped (it can match nothing). */
export type TagList = '*' | EntityTag[];

// etagc: %x21 / %x23-7E / obs-text; a list member is a tag or empty (RFC 9110 §5.6.1).
const MEMBER = /^\s*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"\s*$/;

/** The tags of an If-Match or If-None-Match header; undefined when the header is absent. */
export function parseTagList(header: string | string[] | undefined): TagList | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(',') : header;
  if (text.trim() === '*') return '*';
  const tags: EntityTag[] = [];
  for (const member of text.split(',')) {
    const match = MEMBER.exec(member);
    if (match) tags.push({ weak: match[1] !== undefined, opaque: match[2] });
  }
  return tags;
}

export function formatTag(tag: EntityTag): string {
  return `${tag.weak ? 'W/' : ''}"${tag.opaque}"`;
}

/** The strong tag of a resource at a version, the digest telling apart what differs besides. */
export function versionTag(version: number, digest: string): EntityTag {
  return { weak: false, opaque: `${version}-${digest}` };
}

/** The version a strong tag of ours names, or null for any other tag. */
export function versionOf(tag: EntityTag): number | null {
  if (tag.weak) return null;
  const match = /^([1-9][0-9]{0,14})(?:-|$)/.exec(tag.opaque);
  return match ? Number(match[1]) : null;
}

/**
 * What an If-Match asks of a write: undefined for no precondition (no header, or `*`, which the
 * write's own 404 answers for a missing resource), else the versions it accepts: possibly none,
 * when no member is a strong tag of ours, and then the write is refused.
 */
export function acceptedVersions(header: string | string[] | undefined): readonly number[] | undefined {
  const list = parseTagList(header);
  if (list === undefined || list === '*') return undefined;
  const versions: number[] = [];
  for (const tag of list) {
    const version = versionOf(tag);
    if (version !== null) versions.push(version);
  }
  return versions;
}

/** Weak comparison (RFC 9110 §8.8.3.2), as If-None-Match uses. */
export function noneMatch(list: TagList, current: EntityTag): boolean {
  if (list === '*') return false;
  return !list.some((tag) => tag.opaque === current.opaque);
}
