import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { SERVE_NODE_FLAGS } from '../bin/serve-flags.js';
import { freePort } from '../infra/net/free-port.js';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export { freePort };

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resident and peak resident memory of a process in bytes, from /proc (Linux). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** Linux's USER_HZ: /proc reports CPU times in these ticks (100 a second on every x86 and arm64 kernel). */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time a process has used so far, every thread and user and kernel time together, in microseconds (from /proc, Linux). */
export function cpuMicrosOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS_PER_SECOND;
}

/** Runs a TypeScript script with node + tsx (and `nodeFlags`) and collects its stdout; rejects on a non-zero exit. */
export function runScript(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  profile = false,
  nodeFlags: readonly string[] = [],
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...nodeFlags, ...(profile ? cpuProfileArgs() : []), '--import', 'tsx', script, ...args],
      {
        cwd: ROOT,
        env: { ...process.env, LOG_LEVEL: 'silent', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${script} exited with ${code}: ${(err || out).trim().slice(-2000)}`));
    });
  });
}

/** BENCH_CPU_PROF=DIR profiles the processes under test (node --cpu-prof), to find a miss's cause. */
function cpuProfileArgs(): string[] {
  return process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
}

export interface RunningProcess {
  pid: number;
  url: string;
  stop(): Promise<void>;
}

async function waitUntilAnswering(
  url: string,
  child: ChildProcess,
  timeoutMs: number,
  output: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${output().slice(-2000)}`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`server did not answer ${url} within ${timeoutMs} ms`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Starts a script as a long-running server on a free port and waits until `probePath` answers. */
export async function startProcess(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  probePath: string,
  timeoutMs = 600_000,
  nodeFlags: readonly string[] = [],
): Promise<RunningProcess> {
  const port = await freePort();
  // Compiled JavaScript (dist/) runs as it is; TypeScript goes through tsx.
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...nodeFlags, ...cpuProfileArgs(), ...loader, script, ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'silent', HOST: '127.0.0.1', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilAnswering(`${url}${probePath}`, child, timeoutMs, () => output);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  if (child.pid === undefined) throw new Error(`${script} has no pid`);
  return { pid: child.pid, url, stop: () => stopChild(child) };
}

/**
 * The production adapters' variables, blank: a benchmark's processes run on the embedded
 * adapters even from a shell that exports the stack's (stack/README.md), unless it names them.
 */
export const EMBEDDED_ENV: NodeJS.ProcessEnv = {
  EVENTSTORE_URL: '',
  FILES_URL: '',
  QUESTION_LOG_URL: '',
  KAFKA_BROKERS: '',
  MONGO_URL: '',
  ELASTICSEARCH_URL: '',
  ELASTICSEARCH_INDEX: '',
  REDIS_URL: '',
  COHERE_API_KEY: '',
};

/** The application server as `npm start` runs it (compiled, dist/bin/serve.js, its node flags) on embedded defaults over `dataDir`. */
export function startAppServer(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<RunningProcess> {
  return startProcess(
    'dist/bin/serve.js',
    [],
    { DATA_DIR: dataDir, ...env },
    '/api/sites',
    undefined,
    SERVE_NODE_FLAGS,
  );
}
