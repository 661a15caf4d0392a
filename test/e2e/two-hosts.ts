import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './process.js';
import { topologyUnavailable } from './topology.js';

/**
 * `npm run test:two-hosts [FILE...]`: the end-to-end suite (or the files named) again, each server of it two hosts of one
 * deployment on the production engines behind a round-robin balancer (test/e2e/topology.ts).
 * `.ci/run` runs some of it after `npm test`, with the engines of `npm run stack:up` (the whole
 * of it would take CI past its 40 minutes).
 *
 * Every end-to-end file runs, but for those whose subject is one host's DATA_DIR or process, or
 * which already run on the engines; each is named here with the reason.
 */
const SINGLE_HOST: Record<string, string> = {
  'test/e2e/backup-cli.test.ts': 'npm run backup beside a server on the same DATA_DIR, and a full DATA_DIR disk',
  'test/e2e/backup-restore.test.ts':
    'restore into a fresh DATA_DIR and its files; on the engines: production/lifecycle.test.ts',
  'test/e2e/backup-schedule-start.test.ts': "one process's schedule at start",
  'test/e2e/bundle.test.ts': 'the bundle npm start runs, on the embedded defaults',
  'test/e2e/first-start-under-load.test.ts': "the embedded defaults' first start on a busy machine",
  'test/e2e/full-disk.test.ts': "a full DATA_DIR disk under the embedded adapters' SQLite files",
  'test/e2e/import-and-restart.test.ts': "the SQLite log's files in DATA_DIR across restarts",
  'test/e2e/postgres-clis.test.ts': 'names its own PostgreSQL log',
  'test/e2e/projections-cli.test.ts': "the SQLite read models' checkpoints in DATA_DIR",
  'test/e2e/resume-and-crash.test.ts': "a crash mid-write of one process on DATA_DIR's SQLite files",
  'test/e2e/split-deployment.test.ts': "the embedded log's identity in DATA_DIR",
  'test/e2e/start-messages.test.ts': "one process's start-up lines on the embedded defaults",
  'test/e2e/two-servers.test.ts': 'two processes on one DATA_DIR (its own topology)',
  'test/e2e/images/two-servers.test.ts': 'two processes on one DATA_DIR (its own topology)',
};

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'production' ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

const unavailable = topologyUnavailable();
if (unavailable) {
  process.stderr.write(`${unavailable}: run \`npm run stack:up\`, source its env file, set PG_EVENTSTORE_URL\n`);
  process.exit(2);
}
const all = testFiles(join(ROOT, 'test', 'e2e'));
for (const file of Object.keys(SINGLE_HOST)) {
  if (!all.includes(file)) throw new Error(`${file} is named but not there`);
}
const two = all.filter((file) => !(file in SINGLE_HOST));
// Files named on the command line: those only (of the two-host ones); anything else goes to tap.
const args = process.argv.slice(2);
const named = args.filter((arg) => arg.endsWith('.test.ts'));
for (const file of named) {
  if (!two.includes(file)) {
    process.stderr.write(`${file} is not an end-to-end file run on two hosts (test/e2e/two-hosts.ts)\n`);
    process.exit(2);
  }
}
const files = named.length > 0 ? named : two;
const run = spawnSync('npx', ['tap', ...args.filter((arg) => !arg.endsWith('.test.ts')), ...files], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, E2E_TOPOLOGY: 'two-hosts' },
});
process.exit(run.status ?? 1);
