import t from 'tap';
import { join } from 'node:path';
import { testConfig } from '../../test-config.js';
import { createRuntime } from '../../../app/runtime.js';
import { createPost } from '../../../commands/blog/post-handlers.js';
import { InProcessJobQueue } from '../../../infra/job-queue/in-process.js';
import type { EnqueueOptions } from '../../../infra/job-queue/port.js';
import { INDEX_QUEUE } from '../../../workers/chatbot/index-queue.js';
import { appModules } from '../../../app/modules.js';

/** The embedded queue, counting what is added to it. */
class CountingQueue extends InProcessJobQueue {
  readonly added: string[] = [];
  override async add<Data>(queue: string, data: Data, options?: EnqueueOptions): Promise<string> {
    this.added.push(queue);
    return super.add(queue, data, options);
  }
}

const published = { title: 'Maps of the county', content: '<p>Old maps.</p>', status: 'published' as const };

t.test('a runtime without workers (a CLI) enqueues no index jobs; the server does', async (t) => {
  // One testdir() call: each call empties the folder, the first runtime's files included.
  const dir = t.testdir();
  const cliJobs = new CountingQueue();
  const cli = await createRuntime(testConfig(join(dir, 'cli')), {
    modules: appModules,
    startWorkers: false,
    infrastructure: { jobs: cliJobs },
  });
  t.teardown(() => cli.close());
  t.notOk(cli.runsWorkers);
  await createPost(cli.commandContext(null), { authorId: null, input: published });
  t.same(cliJobs.added, [], 'a rebuild or import replaying the log leaves no jobs behind');

  const serverJobs = new CountingQueue();
  const server = await createRuntime(testConfig(join(dir, 'server')), {
    modules: appModules,
    infrastructure: { jobs: serverJobs },
  });
  t.teardown(() => server.close());
  t.ok(server.runsWorkers);
  await createPost(server.commandContext(null), { authorId: null, input: published });
  t.ok(serverJobs.added.includes(INDEX_QUEUE), 'the server indexes the published post');
  await serverJobs.drain(INDEX_QUEUE);
});
