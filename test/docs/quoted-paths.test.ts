// Every file or folder a README or a doc quotes (in backticks) exists, so a moved or renamed file
// cannot leave the docs pointing at nothing. A quoted path is read from the doc's own folder, then
// from the repository's root; a bare file name (`events.ts`) must be the name of some file here.
// Placeholders (`<module>`, `*`, `...`) and URLs are not paths. Not checked: docs/perf-history.md,
// a dated log that names files as they were, and the READMEs of third-party files under
// test/fixtures/, which quote their upstream repositories' paths.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { PROJECT_ROOT as projectRoot } from '../../infra/project-root.js';

const SOURCE_EXTENSIONS = /\.(ts|js|mjs|cjs|json|md|sh|yaml|yml|xml|xsd|onnx|txt|html|css)$/;
const TOP_FOLDERS = new Set(
  readdirSync(projectRoot, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== 'node_modules')
    .map((entry) => `${entry.name}/`),
);

/** Files the product or its tools write, quoted by the docs that explain them. */
const WRITTEN_AT_RUN_TIME = new Map<string, string>([
  ['./data', 'the default DATA_DIR'],
  ['dist/', 'built by npm ci (postinstall) and npm run build'],
  ['bench/results.json', 'written by npm run bench'],
  ['results.json', 'bench/results.json, written by npm run bench'],
  ['models/candidates/', 'written by models/extract.sh, ignored by git'],
  ['info.json', 'a IIIF image service document, served'],
  ['manifest.json', 'inside a backup archive'],
  ['read-side/', 'inside a backup archive'],
  ['backups/', 'under DATA_DIR'],
  ['museum.json', 'under BENCH_MUSEUM_DIR, written by the museum benchmark'],
]);

/** Every file and folder name in the repository (node_modules, dist and data left out). */
const NAMES = new Set<string>();

/** The docs checked: every README.md outside node_modules, and docs/*.md. */
function docs(): string[] {
  const found: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(path.join(projectRoot, folder), { withFileTypes: true })) {
      if (['.git', '.tap', 'node_modules', 'dist', 'data', 'coverage'].includes(entry.name)) continue;
      const relative = path.join(folder, entry.name);
      NAMES.add(entry.name);
      if (entry.isDirectory()) walk(relative);
      else if (relative.startsWith('test/fixtures/') || relative === 'docs/perf-history.md') continue;
      else if (entry.name === 'README.md' || (folder === 'docs' && entry.name.endsWith('.md'))) found.push(relative);
    }
  };
  walk('.');
  return found.sort();
}

/** A backquoted span that names a file or folder of this repository, or null. */
export function quotedPath(span: string): string | null {
  const text = span.trim().replace(/:\d+(-\d+)?$/, '');
  if (/[\s<>*{}|$=()[\],;'"!?]|\.\.\.|^[a-z]+:|^@|^\/|^~|^-|^\.[a-z0-9]+$|\bNAME\b|^(DATA_DIR|STACK_DIR)\//.test(text))
    return null;
  if (!text.includes('/') && !SOURCE_EXTENSIONS.test(text)) return null;
  if (!text.includes('/')) return text;
  const first = `${text.split('/')[0]}/`;
  if (text.startsWith('./') || text.startsWith('../')) return text;
  // A path under a top folder (`routes/blog/`), or one relative to the doc (`blog/events.ts`).
  return TOP_FOLDERS.has(first) || SOURCE_EXTENSIONS.test(text) || text.endsWith('/') ? text : null;
}

t.test('quotedPath tells paths from other code spans', async (t) => {
  t.equal(quotedPath('routes/blog/index.ts'), 'routes/blog/index.ts');
  t.equal(quotedPath('blog/events.ts'), 'blog/events.ts');
  t.equal(quotedPath('commands/<module>/events.ts'), null);
  t.equal(quotedPath('npm run bench'), null);
  t.equal(quotedPath('https://iiif.io/api/image/3/context.json'), null);
  t.equal(quotedPath('GET /api/items'), null);
  t.equal(quotedPath('/api/items'), null);
  t.equal(quotedPath('application/json'), null);
  t.equal(quotedPath('.txt'), null);
  t.equal(quotedPath('DATA_DIR/cache/files/'), null);
  t.equal(quotedPath('models/NAME/'), null);
});

for (const doc of docs()) {
  t.test(doc, async (t) => {
    const text = readFileSync(path.join(projectRoot, doc), 'utf8').replace(/```[\s\S]*?```/g, '');
    const missing: string[] = [];
    for (const match of text.matchAll(/`([^`\n]+)`/g)) {
      const quoted = quotedPath(match[1] ?? '');
      if (quoted === null || WRITTEN_AT_RUN_TIME.has(quoted)) continue;
      if (!quoted.includes('/')) {
        if (!NAMES.has(quoted)) missing.push(quoted);
        continue;
      }
      const fromDoc = path.join(projectRoot, path.dirname(doc), quoted);
      const fromRoot = path.join(projectRoot, quoted);
      if (!existsSync(fromDoc) && !existsSync(fromRoot)) missing.push(quoted);
    }
    t.same(missing, [], `${doc} quotes only paths that exist`);
  });
}
