import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../app/app.js';
import { embeddedConfig } from '../infra/config.js';
import { createLogger } from '../app/logger.js';
import { createRuntime } from '../app/runtime.js';
import { appModules } from '../app/modules.js';

/**
 * `npm run openapi -- FILE.json`: writes the OpenAPI document the server serves at
 * /api/docs.json, built on a throwaway data directory (CI lints it with Redocly).
 */
async function main(): Promise<void> {
  const out = process.argv[2];
  if (!out) throw new Error('Usage: npm run openapi -- FILE.json');
  const dataDir = mkdtempSync(join(tmpdir(), 'openapi-'));
  try {
    const runtime = await createRuntime(embeddedConfig(dataDir), {
      modules: appModules,
      logger: createLogger('silent'),
      startWorkers: false,
    });
    const app = await buildApp(runtime);
    await app.ready();
    writeFileSync(out, `${JSON.stringify(app.swagger(), null, 2)}\n`);
    await app.close();
    await runtime.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
