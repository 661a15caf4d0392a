import { join } from 'node:path';
import t from 'tap';
import { buildApp } from '../../app/app.js';
import { testConfig } from '../test-config.js';
import type { AppModule, ModuleInstance } from '../../app/kernel.js';
import { backupsModule } from '../../app/modules/backups.js';
import { chatbotModule } from '../../app/modules/chatbot.js';
import { usersModule } from '../../app/modules/core.js';
import { createRuntime } from '../../app/runtime.js';
import { appModules } from '../../app/modules.js';

interface CountingInstance extends ModuleInstance {
  label: string;
}

t.test(
  "a module is created once per runtime; what it built is that runtime's alone, typed by its definition",
  async (t) => {
    const created: string[] = [];
    const stopped: string[] = [];
    const counting: AppModule<CountingInstance> = {
      name: 'counting',
      create(runtime) {
        const label = `built for ${runtime.config.dataDir}`;
        created.push(label);
        return {
          label,
          async stop() {
            stopped.push(label);
          },
        };
      },
    };
    // One testdir() call: each call empties the folder, the first runtime's files included.
    const dir = t.testdir();
    const first = await createRuntime(testConfig(join(dir, 'first')), {
      modules: [usersModule, counting],
      startWorkers: false,
    });
    const second = await createRuntime(testConfig(join(dir, 'second')), {
      modules: [usersModule, counting],
      startWorkers: false,
    });
    t.equal(created.length, 2, 'one create per runtime');
    t.equal(first.module(counting).label, created[0]);
    t.equal(second.module(counting).label, created[1]);
    t.not(first.module(counting).label, second.module(counting).label);
    t.throws(() => first.module(chatbotModule), /The chatbot module does not run in this runtime/);
    await first.close();
    t.same(stopped, [created[0]], 'closing a runtime stops its instance only');
    await second.close();
    t.same(stopped, created);
  },
);

t.test('two runtimes of the app modules share no chatbot service and no API source', async (t) => {
  const dir = t.testdir();
  const first = await createRuntime(testConfig(join(dir, 'first')), { modules: appModules, startWorkers: false });
  t.teardown(() => first.close());
  const second = await createRuntime(testConfig(join(dir, 'second')), { modules: appModules, startWorkers: false });
  t.teardown(() => second.close());
  t.not(first.module(chatbotModule).services, second.module(chatbotModule).services);
  t.not(first.module(chatbotModule).services.vectorIndex, second.module(chatbotModule).services.vectorIndex);
  t.equal(first.module(backupsModule).apiSource.app, null, 'no app yet');
  const app = await buildApp(first);
  t.equal(
    first.module(backupsModule).apiSource.app,
    app,
    'the backups routes attached the app they were registered on',
  );
  t.equal(second.module(backupsModule).apiSource.app, null, "and only to their own runtime's module");
  await app.close();
  t.equal(first.module(backupsModule).apiSource.app, null, 'a closed app is no source any more');
});
