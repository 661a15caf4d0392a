import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { REBUILD_NODE_FLAGS } from '../../bin/rebuild-flags.js';
import { SERVE_NODE_FLAGS } from '../../bin/serve-flags.js';
import { ROOT } from '../e2e/process.js';

const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
  .scripts;

const cases = [
  { script: 'rebuild', entry: 'bin/rebuild.ts', flags: REBUILD_NODE_FLAGS, measuredBy: 'the replay benchmark' },
  { script: 'start', entry: 'dist/bin/serve.js', flags: SERVE_NODE_FLAGS, measuredBy: 'the benchmarks of the server' },
];

for (const { script, entry, flags, measuredBy } of cases) {
  t.test(`npm run ${script} runs node with the flags ${measuredBy} uses`, async (t) => {
    // The last command of the script.
    const words = scripts[script].split('&&').at(-1)?.trim().split(/\s+/) ?? [];
    t.equal(words[0], 'node', 'node itself, so the flags reach V8');
    const at = words.indexOf(entry);
    t.ok(at > 0, `runs ${entry}`);
    for (const flag of flags) {
      const index = words.indexOf(flag);
      t.ok(index > 0 && index < at, `${flag} is a node flag of the script`);
    }
  });
}
