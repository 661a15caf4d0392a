import { uniqueSlug } from '../infra/text/slug.js';

/** Lets go of a claim: once the write it guarded is projected, or has failed. */
export type ReleaseClaim = () => void;

/**
 * Slugs chosen by commands whose writes are not projected yet. A command claims a slug before it
 * looks the slug up in the read models and holds it until its write is projected, so a
 * concurrent command cannot take the same one: two posts titled alike get `x` and `x-2`, and a
 * slug given outright as `x-2` waits for the post that reached `x-2` from `x`. Only the slug
 * itself is held, so creates of different slugs never wait for each other.
 *
 * Claiming before looking means a command that let go of a slug had its write projected before
 * the look-up began. It covers the commands of one process; several processes writing one log
 * (production event stores) are not covered.
 */
export class SlugClaims {
  /** Per claimed key, settled when the claim is let go. */
  private readonly held = new Map<string, Promise<void>>();

  /** Claims `key` now, unless a command in flight holds it. */
  tryClaim(key: string): ReleaseClaim | null {
    if (this.held.has(key)) return null;
    let letGo!: () => void;
    this.held.set(key, new Promise<void>((resolve) => (letGo = resolve)));
    return () => {
      this.held.delete(key);
      letGo();
    };
  }

  /** Settles once no command holds `key`. */
  async whenFree(key: string): Promise<void> {
    for (let holder = this.held.get(key); holder; holder = this.held.get(key)) await holder;
  }

  /** Keys held (for tests). */
  get size(): number {
    return this.held.size;
  }
}

export interface ClaimedSlug {
  slug: string;
  release: ReleaseClaim;
}

/**
 * Claims a slug in `scope` (one kind of resource): `given` if it is free, else null; without
 * one, the first free of `base`, `base-2`, ... (uniqueSlug), a slug held by a command in flight
 * counting as taken. A given slug held by a command in flight is waited for, then looked at.
 */
export async function claimSlug(
  claims: SlugClaims,
  scope: string,
  given: string | undefined,
  base: string,
  taken: (slug: string) => Promise<boolean>,
): Promise<ClaimedSlug | null> {
  const key = (slug: string) => `${scope}:${slug}`;
  if (given) {
    for (;;) {
      await claims.whenFree(key(given));
      const release = claims.tryClaim(key(given));
      if (!release) continue;
      if (!(await taken(given))) return { slug: given, release };
      release();
      return null;
    }
  }
  // Every candidate found free stays claimed until the search ends; all but the answer are let go.
  const found = new Map<string, ReleaseClaim>();
  const slug = await uniqueSlug(base, async (candidate) => {
    const release = claims.tryClaim(key(candidate));
    if (!release) return true;
    if (await taken(candidate)) {
      release();
      return true;
    }
    found.set(candidate, release);
    return false;
  });
  for (const [candidate, release] of found) if (candidate !== slug) release();
  const release = found.get(slug);
  if (!release) throw new Error(`uniqueSlug answered ${slug}, a slug it did not find free.`);
  return { slug, release };
}
