import { uniqueSlug } from '../infra/text/slug.js';

/** Lets go of a claim: once the write it guarded is projected, or has failed. */
export type ReleaseClaim = () => void;

/**
 * Slugs chosen by commands whose writes are not projected yet. A command that checks the read
 * models for a free slug and then writes it claims the slug in between, so a concurrent command
 * cannot take the same one: two posts titled alike get `x` and `x-2`, and a slug given outright
 * as `x-2` waits for the post that reached `x-2` from `x`. Only the slug itself is held, so
 * creates of different slugs never wait for each other.
 *
 * It covers the commands of one process; several processes writing one log (production event
 * stores) are not covered.
 */
export class SlugClaims {
  /** Per claimed key, settled when the claim is let go. */
  private readonly held = new Map<string, Promise<void>>();

  /** Whether a command in flight holds the key (a uniqueSlug probe counts it as taken). */
  isHeld(key: string): boolean {
    return this.held.has(key);
  }

  /**
   * Claims `key` unless the slug is `taken` in the read models; answers the release, or null when
   * taken. A key held by a command in flight is waited for and looked at again.
   */
  async claim(key: string, taken: () => Promise<boolean>): Promise<ReleaseClaim | null> {
    for (;;) {
      const holder = this.held.get(key);
      if (holder) {
        await holder;
        continue;
      }
      if (await taken()) return null;
      // Another command may have claimed it while the read models answered.
      if (this.held.has(key)) continue;
      let letGo!: () => void;
      this.held.set(key, new Promise<void>((resolve) => (letGo = resolve)));
      const release: ReleaseClaim = () => {
        this.held.delete(key);
        letGo();
      };
      // One that claimed, wrote and let go while the read models answered has been projected
      // by now: look once more.
      if (await taken()) {
        release();
        return null;
      }
      return release;
    }
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
 * one, the first free of `base`, `base-2`, ... (uniqueSlug), counting the slugs commands in
 * flight hold as taken.
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
    const release = await claims.claim(key(given), () => taken(given));
    return release ? { slug: given, release } : null;
  }
  for (;;) {
    const slug = await uniqueSlug(base, async (candidate) => claims.isHeld(key(candidate)) || (await taken(candidate)));
    const release = await claims.claim(key(slug), () => taken(slug));
    if (release) return { slug, release };
  }
}
