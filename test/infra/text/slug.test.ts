import t from 'tap';
import slugifyLib from 'slugify';
import { slugify, uniqueSlug } from '../../../infra/text/slug.js';

/** What the library gives, trimmed to the length and dash rule slugify() applies. */
const viaLibrary = (text: string, max = 190): string =>
  slugifyLib(text, { lower: true, strict: true, trim: true }).slice(0, max).replace(/-+$/, '') || 'untitled';

t.test('titles slug to lower-case words joined by dashes', async (t) => {
  t.equal(slugify('Hello, World!'), 'hello-world');
  t.equal(slugify('  Maps -- of  the_Old  World  '), 'maps-of-theold-world');
  t.equal(slugify('Rock & Roll'), 'rock-and-roll', 'the library spells & out');
  t.equal(slugify('Café Noël'), 'cafe-noel', 'accents fold to ASCII');
  t.equal(slugify('?!'), 'untitled');
  t.equal(slugify('abc def ghi', 6), 'abc-de');
  t.equal(slugify('abc def', 4), 'abc', 'no dash is left at the end after the cut');
});

t.test('the plain-ASCII shortcut gives exactly what the library gives', async (t) => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const alphabet = ' \t\n-_.,:;!?"\'()[]{}/\\@#*+=~^`$%&<>|AbZz09éß\u0001\u007f';
  let compared = 0;
  for (let i = 0; i < 5000; i++) {
    let text = '';
    const length = Math.floor(random() * 24);
    for (let j = 0; j < length; j++) text += alphabet[Math.floor(random() * alphabet.length)];
    const max = 1 + Math.floor(random() * 30);
    if (slugify(text, max) !== viaLibrary(text, max))
      t.fail(`${JSON.stringify(text)} (max ${max}): ${slugify(text, max)} vs ${viaLibrary(text, max)}`);
    compared++;
  }
  t.equal(compared, 5000);
  for (const title of [
    'Bench post 123-abc-1',
    'A-B - C',
    'The 1920s: a decade',
    "Readers' choice (2024)",
    'x_y_z',
    'Tab\there',
  ]) {
    t.equal(slugify(title), viaLibrary(title), title);
  }
});

t.test('uniqueSlug takes the base, else the first free suffix after the taken run', async (t) => {
  const taken = new Set(['maps', 'maps-2']);
  const isTaken = async (s: string) => taken.has(s);
  t.equal(await uniqueSlug('maps', isTaken), 'maps-3');
  t.equal(await uniqueSlug('globes', isTaken), 'globes');
  taken.add('globes');
  t.equal(await uniqueSlug('globes', isTaken), 'globes-2');
  for (let count = 3; count <= 40; count++) {
    taken.add(await uniqueSlug('maps', isTaken));
    t.ok(taken.has(`maps-${count}`), `one after another they are numbered in order (${count})`);
  }
});

t.test('a long run of taken suffixes costs a logarithmic number of look-ups', async (t) => {
  const taken = new Set(['news']);
  for (let n = 2; n <= 5000; n++) taken.add(`news-${n}`);
  let lookUps = 0;
  const slug = await uniqueSlug('news', async (s) => {
    lookUps++;
    return taken.has(s);
  });
  t.equal(slug, 'news-5001');
  t.ok(lookUps <= 30, `${lookUps} look-ups for 5,000 taken`);
});

t.test('with a freed suffix in the run, the answer is still free', async (t) => {
  const taken = new Set(['maps', 'maps-2', 'maps-4', 'maps-5']);
  const slug = await uniqueSlug('maps', async (s) => taken.has(s));
  t.notOk(taken.has(slug));
  t.match(slug, /^maps-\d+$/);
});
