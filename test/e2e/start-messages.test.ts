import t from 'tap';
import { startServer, type ServerProcess } from './process.js';

/** The server's output once it holds `text` (pipes deliver it a little after HTTP answers), or as it is after 5 s. */
async function outputWith(server: ServerProcess, text: string): Promise<string> {
  const deadline = Date.now() + 5_000;
  while (!server.stdout().includes(text) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return server.stdout();
}

t.test('the server says where it listens, where its reference and data are, and when it stops', async (t) => {
  const dataDir = t.testdir();
  const server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  t.teardown(() => server.stop('SIGKILL'));
  const started = await outputWith(server, 'Listening on');
  t.match(started, `Listening on ${server.baseUrl}`, 'the listening URL');
  t.match(started, `${server.baseUrl}/api/docs`, 'the API reference URL');
  t.match(started, `data in ${dataDir}`, 'the data directory');

  await server.stop('SIGTERM');
  t.match(
    await outputWith(server, 'Shutting down'),
    'Shutting down (SIGTERM)',
    'the shutdown is logged with its signal',
  );
  t.match(await outputWith(server, '"msg":"Stopped"'), '"msg":"Stopped"', 'and its end');
});
