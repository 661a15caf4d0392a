import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { projectFile } from '../infra/project-root.js';

/**
 * Bundles the server `npm start` runs (dist/bin/serve.js, after tsc has compiled dist/): Node's
 * module loader spent about 300 ms of a start opening and linking some 300 compiled files and
 * TypeBox's 250; one file and a few chunks load in a fraction of that (bench/README.md, "Start
 * from a bundle"). Modules imported with `import()` become chunks loaded on first use.
 *
 * Every package stays external except TypeBox (pure ESM, imported by this code alone): others
 * load native addons or files beside themselves (better-sqlite3, sqlite-vec, swagger-ui's
 * assets, pino's transports), and archiver's crc-32 is patched through `require`
 * (workers/backups/native-crc32.ts), which must find the one copy archiver uses. Worker threads
 * keep running dist's unbundled scripts (infra/event-store/start-thread.ts).
 */
const BUNDLED_PACKAGES = new Set(['@sinclair/typebox']);

const manifest = JSON.parse(readFileSync(projectFile('package.json'), 'utf8')) as { dependencies: Record<string, string> };
const external = Object.keys(manifest.dependencies)
  .filter((name) => !BUNDLED_PACKAGES.has(name))
  .flatMap((name) => [name, `${name}/*`]);

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
  external,
  logLevel: 'warning',
});
