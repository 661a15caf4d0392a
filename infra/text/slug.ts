import slugifyLib from 'slugify';

/** A URL slug from a title: lower case ASCII letters, digits and dashes; 'untitled' when nothing is left. */
export function slugify(text: string, maxLength = 190): string {
  const slug = slugifyLib(text, { lower: true, strict: true, trim: true }).slice(0, maxLength).replace(/-+$/, '');
  return slug || 'untitled';
}

/**
 * The first of `base`, `base-2`, `base-3`, ... that `isTaken` says is free. Used for slugs that
 * must be unique in a scope (blog posts, categories, sibling folders).
 */
export async function uniqueSlug(base: string, isTaken: (slug: string) => Promise<boolean>): Promise<string> {
  if (!(await isTaken(base))) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!(await isTaken(candidate))) return candidate;
  }
}
