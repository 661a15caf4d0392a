import t from 'tap';
import { claimSlug, SlugClaims } from '../../commands/slug-claims.js';

/** A read model of slugs, answered a turn later as a real store would. */
function slugIndex() {
  const slugs = new Set<string>();
  const taken = async (slug: string) => {
    await new Promise((resolve) => setImmediate(resolve));
    return slugs.has(slug);
  };
  return { slugs, taken };
}

t.test('commands choosing a slug from one base at once get distinct slugs', async (t) => {
  const claims = new SlugClaims();
  const index = slugIndex();
  const chosen = await Promise.all(
    Array.from({ length: 5 }, async () => {
      const claimed = await claimSlug(claims, 'post', undefined, 'maps', index.taken);
      if (!claimed) throw new Error('no slug');
      // The write: projected, then the claim let go.
      await new Promise((resolve) => setTimeout(resolve, 5));
      index.slugs.add(claimed.slug);
      claimed.release();
      return claimed.slug;
    }),
  );
  t.equal(new Set(chosen).size, 5, `distinct: ${chosen.join(', ')}`);
  t.ok(chosen.includes('maps') && chosen.every((slug) => /^maps(-\d+)?$/.test(slug)), 'the base, then numbered from it');
  t.equal(claims.size, 0, 'every claim was let go');
});

t.test('a given slug held by a command in flight waits for it: taken if it wrote, free if it failed', async (t) => {
  const claims = new SlugClaims();
  const index = slugIndex();
  const first = await claimSlug(claims, 'post', 'wanted', '', index.taken);
  if (!first) throw new Error('no slug');
  const second = claimSlug(claims, 'post', 'wanted', '', index.taken);
  await new Promise((resolve) => setTimeout(resolve, 5));
  t.equal(claims.size, 1, 'still held while the first is in flight; the second only waits');
  index.slugs.add('wanted');
  first.release();
  t.equal(await second, null, 'written by the first: refused');

  const failing = await claimSlug(claims, 'post', 'other', '', index.taken);
  if (!failing) throw new Error('no slug');
  const waiting = claimSlug(claims, 'post', 'other', '', index.taken);
  failing.release();
  const granted = await waiting;
  t.equal(granted?.slug, 'other', 'the first failed without writing: granted');
  granted?.release();
  t.equal(claims.size, 0);
});

t.test('scopes are apart: one slug may be claimed in two of them', async (t) => {
  const claims = new SlugClaims();
  const index = slugIndex();
  const post = await claimSlug(claims, 'post', 'news', '', index.taken);
  const category = await claimSlug(claims, 'category', 'news', '', index.taken);
  t.equal(post?.slug, 'news');
  t.equal(category?.slug, 'news');
});
