import { join } from 'node:path';
import { ESLint } from 'eslint';
import t, { type Test } from 'tap';
import { PROJECT_ROOT } from '../../infra/project-root.js';

/*
 * The layer rule of eslint.config.js (`layers/one-way`), probed with files that exist only as
 * text: each probe is linted as if it lay in a layer's folder (lintText with its filePath), so
 * nothing is written. Each refused probe imports a layer above its own, or beside it where the
 * order says never (queries and projections, routes and workers); each allowed probe imports
 * one the order lets it, and must pass.
 */

const RULE = 'layers/one-way';
const eslint = new ESLint({ cwd: PROJECT_ROOT });

/** A probe that uses what it imports, so no other rule has anything to say. */
const importing = (specifier: string) => `import { probe } from '${specifier}';\nexport const used = probe;\n`;

async function layerMessages(t: Test, filePath: string, code: string): Promise<string[]> {
  if (await eslint.isPathIgnored(filePath))
    throw new Error(`${filePath} is ignored by ESLint: the probe would lint nothing`);
  const [result] = await eslint.lintText(code, { filePath });
  t.equal(result.filePath, join(PROJECT_ROOT, filePath), `${filePath} was linted`);
  return result.messages.filter((message) => message.ruleId === RULE).map((message) => message.message);
}

const refused: [string, string, string][] = [
  [
    'queries/probe.ts',
    importing('../commands/blog/post-handlers.js'),
    'queries/ imports only contracts/, infra/: not commands/',
  ],
  [
    'queries/blog/probe.ts',
    importing('../../projections/blog/posts.js'),
    'queries/ imports only contracts/, infra/: not projections/',
  ],
  [
    'projections/probe.ts',
    importing('../queries/users.js'),
    'projections/ imports only contracts/, infra/: not queries/',
  ],
  ['projections/blog/probe.ts', importing('../../commands/blog/post-decider.js'), 'not commands/'],
  ['routes/backups/probe.ts', importing('../../workers/backups/make-backup.js'), 'not workers/'],
  ['routes/probe.ts', importing('../projections/runner.js'), 'not projections/'],
  ['contracts/probe.ts', importing('../commands/decider.js'), 'contracts/ imports only infra/: not commands/'],
  ['contracts/blog/probe.ts', importing('../../projections/blog/posts.js'), 'not projections/'],
  ['contracts/probe.ts', importing('../queries/users.js'), 'not queries/'],
  [
    'commands/probe.ts',
    importing('../projections/runner.js'),
    'commands/ imports only queries/, contracts/, infra/: not projections/',
  ],
  ['commands/blog/probe.ts', importing('../../workers/chatbot/worker.js'), 'not workers/'],
  ['commands/probe.ts', importing('../routes/http/auth.js'), 'not routes/'],
  ['workers/probe.ts', importing('../routes/http/auth.js'), 'not routes/'],
  ['workers/backups/probe.ts', importing('../../app/kernel.js'), 'not app/'],
  ['infra/probe.ts', importing('../contracts/domain-event.js'), 'infra/ imports only its own files: not contracts/'],
  ['infra/event-store/probe.ts', importing('../../bin/serve.js'), 'not bin/'],
  // Every form of import is checked: a type import, a re-export, a dynamic import, a type query.
  [
    'queries/probe.ts',
    "import type { Probe } from '../commands/decider.js';\nexport type Used = Probe;\n",
    'not commands/',
  ],
  ['queries/probe.ts', "export { probe } from '../projections/runner.js';\n", 'not projections/'],
  ['queries/probe.ts', "export * from '../projections/runner.js';\n", 'not projections/'],
  ['projections/probe.ts', "export const load = () => import('../queries/users.js');\n", 'not queries/'],
  ['routes/probe.ts', "export type Job = typeof import('../workers/backups/backup-job.js');\n", 'not workers/'],
];

const allowed: [string, string][] = [
  ['infra/probe.ts', importing('./errors.js')],
  ['contracts/blog/probe.ts', importing('../../infra/errors.js')],
  ['projections/blog/probe.ts', importing('../../contracts/blog/documents.js')],
  ['queries/blog/probe.ts', importing('../../contracts/blog/documents.js')],
  ['commands/blog/probe.ts', importing('../../queries/blog/posts.js')],
  ['workers/backups/probe.ts', importing('../../commands/backups/handlers.js')],
  ['workers/assets/probe.ts', importing('../../projections/assets/assets.js')],
  ['routes/blog/probe.ts', importing('../../commands/blog/post-handlers.js')],
  ['routes/backups/probe.ts', importing('../../contracts/backups/backup-service.js')],
  ['app/modules/probe.ts', importing('../../workers/backups/backup-service.js')],
  ['bin/probe.ts', importing('../projections/rebuild.js')],
  ['queries/probe.ts', importing('some-package')],
];

t.test('an import into a layer the order does not allow is refused', async (t) => {
  for (const [filePath, code, says] of refused) {
    const messages = await layerMessages(t, filePath, code);
    t.equal(messages.length, 1, `${filePath}: ${code.split('\n')[0]}`);
    t.match(messages[0] ?? '', says);
  }
});

t.test('an import the order allows passes', async (t) => {
  for (const [filePath, code] of allowed) {
    t.same(await layerMessages(t, filePath, code), [], `${filePath}: ${code.split('\n')[0]}`);
  }
});
