import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { projectFile } from '../../project-root.js';
import { startSourceThread } from '../../worker-thread.js';
import type { SentenceModelSpec } from './model-files.js';

/**
 * The compiled thread by its place in dist/, not beside this module: `npm start` runs a bundle
 * of the server (bin/bundle-server.ts), whose `import.meta.url` is the bundle's.
 */
export const COMPILED_MODEL_THREAD = 'dist/infra/embedder/sentence-model/thread.js';

/**
 * Starts the model thread (or, in tests, another script speaking its protocol; the benchmark
 * passes the compiled thread, as `npm start` runs it), which loads the model `spec` names. Compiled, it runs dist's JavaScript;
 * under tsx it runs the TypeScript source, registering tsx in the worker first, since a worker
 * does not inherit the hooks `--import tsx` installed (privatenumber/tsx#354).
 */
export function startModelThread(spec: SentenceModelSpec, script?: URL): Worker {
  script ??= import.meta.url.endsWith('.ts')
    ? new URL('./thread.ts', import.meta.url)
    : pathToFileURL(projectFile(COMPILED_MODEL_THREAD));
  return script.href.endsWith('.ts') ? startSourceThread(script, spec) : new Worker(script, { workerData: spec });
}
