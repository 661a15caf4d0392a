import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { projectFile } from '../infra/project-root.js';

/**
 * Bundles the server `npm start` runs (dist/bin/serve.js, after tsc has compiled dist/): Node's
 * module loader spent about 300 ms of a start opening, reading and linking some 300 compiled
 * files and several hundred of the packages'; one file and a few chunks load in a fraction of
 * that (docs/perf-history.md, "Start from a bundle"). Modules imported with `import()` become chunks
 * loaded on first use.
 *
 * The packages are bundled too, except these, which Node loads from node_modules as before:
 */
const EXTERNAL = [
  // native addons, found beside the package
  'better-sqlite3',
  'sqlite-vec',
  'usearch',
  'sharp',
  // files read beside the package: swagger-ui's assets, pino's transport threads
  '@fastify/swagger-ui',
  'pino',
  // its crc-32 is patched through `require` (workers/backups/native-crc32.ts): one copy, the one archiver uses
  'archiver',
  // the production adapters' clients and the CLIs' packages, imported only when configured or used
  'cohere-ai',
  'mongodb',
  'kafkajs',
  'bullmq',
  'ioredis',
  '@elastic/elasticsearch',
  '@eventstore/db-client',
  'yauzl',
  'cli-progress',
  'tsx',
];

const CHUNKS = 'serve-chunks';
// Chunk names carry a hash of their content: the last build's chunks would stay beside the new ones.
rmSync(projectFile(`dist/bin/${CHUNKS}`), { recursive: true, force: true });

await build({
  entryPoints: [projectFile('bin/serve.ts')],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: projectFile('dist/bin'),
  entryNames: '[name]',
  chunkNames: `${CHUNKS}/[name]-[hash]`,
  sourcemap: true,
  external: EXTERNAL.flatMap((name) => [name, `${name}/*`]),
  // The bundled CommonJS packages `require` Node's own modules, which an ES module has no `require` for.
  banner: {
    js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);",
  },
  logLevel: 'warning',
});
