import closeWithGrace from 'close-with-grace';
import { buildApp } from '../app/app.js';
import { loadConfig } from '../app/config.js';
import { createRuntime } from '../app/runtime.js';

/** `npm start`: the HTTP server with its workers, on embedded defaults unless URLs are set. */
async function main(): Promise<void> {
  const config = loadConfig();
  const runtime = await createRuntime(config);
  const app = await buildApp(runtime);
  closeWithGrace({ delay: 10_000 }, async ({ err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    await app.close();
    await runtime.close();
  });
  await app.listen({ host: config.host, port: config.port });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
