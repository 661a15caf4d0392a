// docs/DEVELOPING.md is read in one sitting: its conventions stay under 150 lines, and its recipes
// (after `# Recipes`) are numbered lists of files, one per common change.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { projectFile } from '../../infra/project-root.js';

const text = readFileSync(projectFile('docs/DEVELOPING.md'), 'utf8');
const [conventions = '', recipes = ''] = text.split(/^# Recipes$/m);

t.test('the conventions are under 150 lines', async (t) => {
  t.ok(recipes.length > 0, 'a `# Recipes` part follows them');
  t.ok(conventions.split('\n').length < 150, `${conventions.split('\n').length} lines`);
});

t.test('each recipe is a numbered list', async (t) => {
  const sections = recipes.split(/^## /m).slice(1);
  const titles = sections.map((section) => section.split('\n')[0]);
  for (const wanted of ['a field', 'an endpoint', 'an event', 'a projection', 'an adapter'])
    t.ok(
      titles.some((title) => title.includes(wanted)),
      `a recipe for ${wanted}`,
    );
  for (const section of sections) t.match(section, /^1\. /m, `${section.split('\n')[0]} is numbered`);
});
