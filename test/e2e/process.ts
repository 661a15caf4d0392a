import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { SERVE_NODE_FLAGS } from '../../bin/serve-flags.js';
import { freePort } from '../../infra/net/free-port.js';
import { TEST_SECRET_HASH_COST } from '../test-config.js';
import { ENGINE_VARIABLES, inTopology, secondHostDataDir, startBalancer, wantsTwoHosts } from './topology.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

// BASE_URL too: a spawned server describes itself by the HOST and PORT it was given.
const INFRASTRUCTURE_URLS = [
  ...ENGINE_VARIABLES,
  'COHERE_API_KEY',
  'COHERE_BASE_URL',
  'BASE_URL',
  'ELASTICSEARCH_INDEX',
];

/**
 * The environment of a spawned CLI or server: embedded defaults unless the test names an
 * adapter's URL itself (CI exports REDIS_URL for the adapter contract tests, not for these),
 * and the tests' hash cost.
 */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of INFRASTRUCTURE_URLS) delete base[name];
  return { ...base, LOG_LEVEL: 'silent', SECRET_HASH_COST: String(TEST_SECRET_HASH_COST), ...env };
}

export { freePort };

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion, collecting what it prints. */
export function runProcess(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs a CLI in bin/ (e.g. 'import.ts') to completion. */
export function runCli(script: string, args: string[], env: Record<string, string>): Promise<RunResult> {
  return runProcess(process.execPath, ['--import', 'tsx', join(ROOT, 'bin', script), ...args], {
    cwd: ROOT,
    env: childEnv(inTopology(env)),
  });
}

export interface ServerProcess {
  baseUrl: string;
  child: ChildProcess;
  /** What the server has written to its standard output so far (its log lines). */
  stdout(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** The bundle `npm start` runs, built by `npm run build` (which `npm ci` runs as `prepare`). */
export const SERVER_BUNDLE = join(ROOT, 'dist', 'bin', 'serve.js');

/**
 * Starts `bin/serve.ts` under tsx with `npm start`'s node flags (it runs the same file bundled in
 * dist/), or with `bundle` the bundle itself, and waits until it answers HTTP. With
 * `E2E_TOPOLOGY=two-hosts` (test/e2e/topology.ts), two servers of one deployment behind a
 * balancer; `child` and `stdout` are then the first's.
 */
export async function startServer(
  env: Record<string, string>,
  timeoutMs = 60_000,
  from: 'sources' | 'bundle' = 'sources',
): Promise<ServerProcess> {
  if (!wantsTwoHosts(env)) return startOne(env, timeoutMs, from);
  const port = await freePort();
  // Both describe themselves by the balancer's address, as servers behind one do.
  const shared = inTopology({ BASE_URL: `http://127.0.0.1:${port}`, ...env });
  const hosts = await Promise.all([
    startOne(shared, timeoutMs, from),
    startOne({ ...shared, DATA_DIR: secondHostDataDir(env.DATA_DIR) }, timeoutMs, from),
  ]);
  const balancer = await startBalancer(
    port,
    hosts.map((host) => host.baseUrl),
  );
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    child: hosts[0].child,
    stdout: () => hosts[0].stdout(),
    async stop(signal?: NodeJS.Signals) {
      await balancer.stop();
      await Promise.all(hosts.map((host) => host.stop(signal)));
    },
  };
}

async function startOne(
  env: Record<string, string>,
  timeoutMs: number,
  from: 'sources' | 'bundle',
): Promise<ServerProcess> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const entry = from === 'bundle' ? [SERVER_BUNDLE] : ['--import', 'tsx', join(ROOT, 'bin', 'serve.ts')];
  const child = spawn(process.execPath, [...SERVE_NODE_FLAGS, ...entry], {
    cwd: ROOT,
    env: childEnv({ HOST: '127.0.0.1', PORT: String(port), ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}): ${stderr}`);
    try {
      const res = await fetch(`${baseUrl}/api/sites`);
      if (res.status < 500) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start in time: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    baseUrl,
    child,
    stdout: () => stdout,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      await exited;
    },
  };
}

/**
 * Writes the fixture beside DATA_DIR (`<name>-<pid>.json`) and imports it as `npm run import` does,
 * with the deployment's other variables in `env` (EVENTSTORE_URL, MONGO_URL, ...).
 */
export function importFixtureFile(
  dataDir: string,
  fixture: object,
  name: string,
  env: Record<string, string> = {},
): Promise<RunResult> {
  const file = join(dataDir, '..', `${name}-${process.pid}-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify(fixture));
  return runCli('import.ts', [file], { ...env, DATA_DIR: dataDir });
}
