import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { REBUILD_NODE_FLAGS } from '../../bin/rebuild-flags.js';
import { ROOT } from '../e2e/process.js';

t.test('npm run rebuild runs node with the rebuild flags the replay benchmark measures', async (t) => {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const words = scripts.rebuild.split(/\s+/);
  t.equal(words[0], 'node', 'node itself, so the flags reach V8');
  const script = words.indexOf('bin/rebuild.ts');
  t.ok(script > 0, 'runs bin/rebuild.ts');
  for (const flag of REBUILD_NODE_FLAGS) {
    const at = words.indexOf(flag);
    t.ok(at > 0 && at < script, `${flag} is a node flag of the script`);
  }
});
