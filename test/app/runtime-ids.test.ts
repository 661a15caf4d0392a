import pino from 'pino';
import t from 'tap';
import { testConfig } from '../test-config.js';
import { createRuntime } from '../../app/runtime.js';
import { createPost } from '../../commands/blog/post-handlers.js';
import { RESERVE } from '../../commands/sequence.js';
import { appModules } from '../../app/modules.js';

const post = (n: number) => ({ title: `Post ${n}`, content: '<p>Text.</p>' });

t.test(
  'a runtime gives back its unused ids as it closes: after a burst of creates and a restart, ids go on without a gap',
  async (t) => {
    const config = testConfig(t.testdir());
    const first = await createRuntime(config, { modules: appModules, startWorkers: false });
    const ctx = first.commandContext(null);
    // Concurrent creates: the allocation takes a reserve beyond the ids they use.
    const ids = await Promise.all(
      Array.from({ length: 5 }, (_, i) => createPost(ctx, { authorId: null, input: post(i) })),
    );
    t.same(
      [...ids].sort((a, b) => a - b),
      [1, 2, 3, 4, 5],
    );
    await first.close();

    const second = await createRuntime(config, { modules: appModules, startWorkers: false });
    t.teardown(() => second.close());
    t.equal(await createPost(second.commandContext(null), { authorId: null, input: post(6) }), 6);
  },
);

t.test('a give-back the log refuses leaves a gap, and the runtime still closes', async (t) => {
  const config = testConfig(t.testdir());
  const first = await createRuntime(config, {
    modules: appModules,
    startWorkers: false,
    logger: pino({ level: 'silent' }),
  });
  const ctx = first.commandContext(null);
  await Promise.all(Array.from({ length: 5 }, (_, i) => createPost(ctx, { authorId: null, input: post(i) })));
  first.eventStore.append = async () => {
    throw new Error('disk full');
  };
  await first.close();

  const second = await createRuntime(config, { modules: appModules, startWorkers: false });
  t.teardown(() => second.close());
  const next = await createPost(second.commandContext(null), { authorId: null, input: post(6) });
  t.ok(next > 6 && next <= 6 + RESERVE, `the reserve stayed taken (next id ${next})`);
});
