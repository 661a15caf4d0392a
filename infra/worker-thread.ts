import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { projectFile } from './project-root.js';

/** A thread script's compiled file, from the project root (where tsc writes it). */
export function compiledThreadScript(script: string): string {
  return `dist/${script}.js`;
}

/**
 * Starts a thread running `script` (a path from the project root without its extension, e.g.
 * `infra/event-store/commit-thread`). Compiled, the thread runs dist's JavaScript, found by its
 * place in dist/ rather than beside the caller: `npm start` runs a bundle of the server
 * (bin/bundle-server.ts), whose `import.meta.url` is the bundle's. Under tsx (tests, CLIs run
 * from source) it runs the TypeScript source, and registers tsx itself first: a worker does not
 * inherit the hooks `--import tsx` installed (privatenumber/tsx#354). `callerUrl` (the caller's
 * `import.meta.url`) tells which of the two is running.
 */
export function startWorkerThread(callerUrl: string, script: string, workerData: unknown): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(projectFile(compiledThreadScript(script)), { workerData });
  return startSourceThread(pathToFileURL(projectFile(`${script}.ts`)), workerData);
}

/** A thread running a TypeScript source under tsx, registered in the thread first (see startWorkerThread). */
export function startSourceThread(entry: URL, workerData?: unknown): Worker {
  return new Worker(
    `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); });`,
    { eval: true, workerData },
  );
}
