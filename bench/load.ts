import { Type, type Static } from '@sinclair/typebox';
import { parseCheckedOrThrow } from '../infra/checked-json.js';
import { cpuMicrosOf, runScript } from './processes.js';

export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
  method?: 'GET' | 'POST';
  /** `[<id>]` in the body is replaced with a fresh id per request. */
  body?: string;
  /** A path (from `url`'s origin) with `[<id>]`, replaced with a fresh id per request: every request a URL never asked before. */
  pathTemplate?: string;
  headers?: Record<string, string>;
}

/** What bench/load-child.ts prints. */
const LoadResultSchema = Type.Object({
  requestsPerSecond: Type.Number(),
  latencyP50: Type.Number(),
  latencyP99: Type.Number(),
  latencyMean: Type.Number(),
  total: Type.Number(),
  non2xx: Type.Number(),
  errors: Type.Number(),
  timeouts: Type.Number(),
});
export type LoadResult = Static<typeof LoadResultSchema>;

/**
 * Generates the load from a second process (autocannon over loopback), so the client's work
 * never shares an event loop with the server under test.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const out = await runScript('bench/load-child.ts', [JSON.stringify({ method: 'GET', headers: {}, ...options })]);
  return parseCheckedOrThrow(LoadResultSchema, out, 'The load process’s result');
}

/** A load round and the CPU the server process spent on each of its requests (every thread, user and kernel). */
export interface ServedLoad extends LoadResult {
  serverCpuMicrosPerRequest: number;
}

export async function runLoadOn(pid: number, options: LoadOptions): Promise<ServedLoad> {
  const before = cpuMicrosOf(pid);
  const result = await runLoad(options);
  return { ...result, serverCpuMicrosPerRequest: (cpuMicrosOf(pid) - before) / Math.max(1, result.total) };
}

/** A load round that answered errors measures nothing: refuse it loudly. */
export function requireClean<R extends LoadResult>(result: R, what: string): R {
  if (result.total === 0) throw new Error(`${what}: no request completed`);
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${what}: ${result.non2xx} non-2xx answers and ${result.errors} errors out of ${result.total}`);
  }
  return result;
}
