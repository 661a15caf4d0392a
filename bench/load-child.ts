import { createRequire } from 'node:module';
import { Type } from '@sinclair/typebox';
import { parseCheckedOrThrow } from '../infra/checked-json.js';

/**
 * Runs one autocannon load in this (separate) process and prints its result as JSON. The
 * API is used instead of the CLI because the CLI's id replacement (-I) leaves a stale
 * Content-Length and the server then waits for bytes that never come.
 */
interface Request {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}
interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  requests: {
    method: string;
    headers: Record<string, string>;
    body?: string;
    setupRequest?: (request: Request) => Request;
  }[];
}
interface AutocannonResult {
  requests: { total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
}
type Autocannon = (options: AutocannonOptions) => Promise<AutocannonResult>;

const ID = '[<id>]';
/** argv[2]: the load, as bench/load.ts gives it (LoadOptions with its defaults). */
const LoadArgument = Type.Object({
  url: Type.String(),
  connections: Type.Number(),
  durationSeconds: Type.Number(),
  method: Type.String(),
  headers: Type.Record(Type.String(), Type.String()),
  body: Type.Optional(Type.String()),
  /** The request's path with `[<id>]` where each request puts an id of its own: every URL new. */
  pathTemplate: Type.Optional(Type.String()),
});
const options = parseCheckedOrThrow(LoadArgument, process.argv[2] ?? '{}', 'The load argument');
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
let next = 0;
// A different id per process too, so two rounds against one server never repeat a body.
const prefix = `${process.pid}-${Date.now().toString(36)}`;
const body = options.body;
const pathTemplate = options.pathTemplate;
const fresh = () => `${prefix}-${(next += 1)}`;
const setupRequest = pathTemplate?.includes(ID)
  ? (request: Request): Request => ({ ...request, path: pathTemplate.split(ID).join(fresh()) })
  : body?.includes(ID)
    ? (request: Request): Request => ({ ...request, body: body.split(ID).join(fresh()) })
    : undefined;
const result = await autocannon({
  url: options.url,
  connections: options.connections,
  duration: options.durationSeconds,
  // autocannon calls setupRequest whenever the key exists, even when it is undefined.
  requests: [{ method: options.method, headers: options.headers, body, ...(setupRequest ? { setupRequest } : {}) }],
});
process.stdout.write(
  JSON.stringify({
    requestsPerSecond: result.requests.total / result.duration,
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
    latencyMean: result.latency.average,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  }),
);
