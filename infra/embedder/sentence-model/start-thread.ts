import { Worker } from 'node:worker_threads';

/**
 * Starts the model thread (or, in tests, another script speaking its protocol). Compiled, it
 * runs dist's JavaScript; under tsx it registers tsx in the worker first, since a worker does
 * not inherit the hooks `--import tsx` installed (privatenumber/tsx#354).
 */
export function startModelThread(script: URL = new URL('./thread.js', import.meta.url)): Worker {
  const typescript = import.meta.url.endsWith('.ts');
  const entry = typescript && script.href.endsWith('.js') ? new URL(script.href.replace(/\.js$/, '.ts')) : script;
  if (!entry.href.endsWith('.ts')) return new Worker(entry);
  const href = JSON.stringify(entry.href);
  return new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${href}); });`, { eval: true });
}
