import closeWithGrace from 'close-with-grace';
import { buildApp } from '../app/app.js';
import { loadConfig } from '../infra/config.js';
import { createRuntime } from '../app/runtime.js';
import { appModules } from '../app/modules.js';

/** `npm start`: the HTTP server with its workers, on embedded defaults unless URLs are set. */
async function main(): Promise<void> {
  const config = loadConfig();
  // Workers start once the server listens: a backlog of index jobs (a whole collection after an
  // import) would otherwise run through the plugins' registration and outlast its timeout.
  const runtime = await createRuntime(config, { modules: appModules, deferWorkers: true });
  const app = await buildApp(runtime);
  closeWithGrace({ delay: 10_000 }, async ({ err, signal }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, `Shutting down (${signal ?? 'close'})`);
    await app.close();
    await runtime.close();
    app.log.info('Stopped');
  });
  const address = await app.listen({ host: config.host, port: config.port });
  // One line a person reads at a glance: where to point a browser, the reference, and where state lives.
  app.log.info(
    { url: address, docs: `${config.baseUrl}/api/docs`, dataDir: config.dataDir },
    `Listening on ${address}; API reference at ${config.baseUrl}/api/docs; data in ${config.dataDir}`,
  );
  await runtime.startWorkers();
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
