import slugifyLib from 'slugify';

/**
 * Printable ASCII without the six characters slugify spells out as words ($ % & < > |): for
 * such text its strict, lower-case slug is plain character classes, and taking it directly
 * costs a tenth of the library's per-character walk (a title is slugged on every create).
 */
const PLAIN_ASCII = /^[\t\n\v\f\r !-#'-;=?-{}~]*$/;

function plainSlug(text: string): string {
  return text
    .replace(/-/g, ' ')
    .replace(/[^A-Za-z0-9\s]/g, '')
    .trim()
    .replace(/\s+/g, '-')
    .toLowerCase();
}

/** A URL slug from a title: lower case ASCII letters, digits and dashes; 'untitled' when nothing is left. */
export function slugify(text: string, maxLength = 190): string {
  const full = PLAIN_ASCII.test(text) ? plainSlug(text) : slugifyLib(text, { lower: true, strict: true, trim: true });
  const slug = full.slice(0, maxLength).replace(/-+$/, '');
  return slug || 'untitled';
}

/**
 * A free slug from `base`: `base` itself, else `base-N` for the first free N after a run of
 * taken ones. Used for slugs that must be unique in a scope (blog posts, categories, sibling
 * folders).
 *
 * Suffixes are handed out in order, so the taken ones are nearly always 2..k: the search
 * gallops (2, 4, 8, ...) to a free suffix and then halves back to the first free one, in
 * O(log k) look-ups instead of k. A hundred posts titled alike cost seven, not a hundred.
 * Where a suffix in the run was freed (its post deleted or renamed), the answer is still free
 * and unique, though not always the lowest free one.
 */
export async function uniqueSlug(base: string, isTaken: (slug: string) => Promise<boolean>): Promise<string> {
  if (!(await isTaken(base))) return base;
  const withSuffix = (n: number) => `${base}-${n}`;
  let taken = 1; // the base itself
  let free = 2;
  while (await isTaken(withSuffix(free))) {
    taken = free;
    free *= 2;
  }
  while (free - taken > 1) {
    const middle = Math.floor((taken + free) / 2);
    if (await isTaken(withSuffix(middle))) taken = middle;
    else free = middle;
  }
  return withSuffix(free);
}
