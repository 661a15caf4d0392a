import { Worker } from 'node:worker_threads';
import { projectFile } from '../project-root.js';

/** The event log's threads, each a script beside this file. */
export type EventLogThread = 'commit-thread' | 'checkpoint-thread';

/** A thread's compiled script, from the project root (where tsc writes it). */
export function compiledEventLogThread(thread: EventLogThread): string {
  return `dist/infra/event-store/${thread}.js`;
}

/**
 * Starts one of the event log's threads. Compiled, a thread runs dist's JavaScript, found by its
 * place in dist/ rather than beside this module: `npm start` runs a bundle of the server
 * (bin/bundle-server.ts), whose `import.meta.url` is the bundle's. Under tsx
 * (tests, CLIs run from source) it runs the TypeScript beside this file, and registers tsx
 * itself first: a worker does not inherit the hooks `--import tsx` installed (privatenumber/tsx#354).
 */
export function startEventLogThread(thread: EventLogThread, workerData: unknown): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(projectFile(compiledEventLogThread(thread)), { workerData });
  const entry = JSON.stringify(new URL(`./${thread}.ts`, import.meta.url).href);
  return new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${entry}); });`, { eval: true, workerData });
}
