import t from 'tap';
import { join } from 'node:path';
import { buildApp } from '../../../app/app.js';
import { testConfig } from '../../test-config.js';
import { importFixture } from '../../../app/import-fixture.js';
import { appModules } from '../../../app/modules.js';
import { createRuntime } from '../../../app/runtime.js';
import { createPost } from '../../../commands/blog/post-handlers.js';
import { MemoryDocumentStore } from '../../../infra/document-store/memory.js';
import { indexOutbox, outboxMark, type ResourceRef } from '../../../contracts/chatbot/documents.js';
import { enqueueOutbox, settlingOutbox } from '../../../workers/chatbot/index-outbox.js';
import { chatbotFixture, indexedKeys, settle } from '../../routes/chatbot/support.js';

const ref = { type: 'blog_post' as const, id: 4 };

t.test('a job removes the mark it found, unless a later change replaced it or it left stand-in vectors', async (t) => {
  const documents = new MemoryDocumentStore();
  const outbox = indexOutbox(documents);
  await outbox.put(outboxMark(ref, 10));
  t.equal(await settlingOutbox(documents, ref, async () => 'indexed'), 'indexed');
  t.equal(await outbox.count(), 0, 'indexed: the mark is gone');

  await outbox.put(outboxMark(ref, 11));
  await settlingOutbox(documents, ref, async () => {
    await outbox.put(outboxMark(ref, 12));
    return 'indexed';
  });
  t.same(
    (await outbox.findOne({ _id: 'blog_post-4' }))?.position,
    12,
    'a change during the job keeps its mark for its own job',
  );

  await settlingOutbox(documents, ref, async () => 'provisional');
  t.same(
    (await outbox.findOne({ _id: 'blog_post-4' }))?.stage,
    'embed',
    "stand-in vectors: the model's are still owed",
  );
  await settlingOutbox(documents, ref, async () => 'indexed');
  t.equal(await outbox.count(), 0, 'the embed job settles it');
  await outbox.put(outboxMark(ref, 13));
  await settlingOutbox(documents, ref, async () => {
    await outbox.put(outboxMark(ref, 14));
    return 'provisional';
  });
  t.same(
    await outbox.findOne({ _id: 'blog_post-4' }),
    outboxMark(ref, 14),
    'a change during the job: its index job is still owed',
  );
  await outbox.deleteMany({});
  t.equal(
    await settlingOutbox(documents, { type: 'item', id: 1 }, async () => 'removed'),
    'removed',
    'a job with no mark (a reindex) runs as before',
  );
});

t.test('every mark is queued, page by page, to the job it is owed', async (t) => {
  const documents = new MemoryDocumentStore();
  await indexOutbox(documents).putMany(
    Array.from({ length: 2500 }, (_, i) => ({
      ...outboxMark({ type: 'media', id: i + 1 }, i + 1),
      ...(i % 10 === 0 ? { stage: 'embed' as const } : {}),
    })),
  );
  const indexing: string[] = [];
  const embedding: string[] = [];
  const to = (list: string[]) => ({ enqueue: async (r: ResourceRef) => void list.push(`${r.type}-${r.id}`) });
  t.equal(await enqueueOutbox(documents, { indexing: to(indexing), embedding: to(embedding) }), 2500);
  t.equal(new Set(indexing).size, 2250, 'the index job, each once');
  t.equal(new Set(embedding).size, 250, 'only the embed job at the embed stage');
  t.notOk(embedding.some((key) => indexing.includes(key)));
});

t.test(
  'work owed when a server stops, or left by a CLI, is indexed at the next start though the index is not empty',
  async (t) => {
    const config = testConfig(join(t.testdir(), 'data'), { baseUrl: 'http://test.local', chatbotRateLimit: 0 });
    const server = async () => {
      const runtime = await createRuntime(config, { modules: appModules });
      const app = await buildApp(runtime);
      return {
        runtime,
        app,
        stop: async () => {
          await app.close();
          await runtime.close();
        },
      };
    };
    const first = await server();
    await importFixture(first.runtime, chatbotFixture);
    await settle(first.runtime);
    t.equal(await indexOutbox(first.runtime.documents).count(), 0, 'a settled server owes nothing');
    const before = await indexedKeys(first.app);
    t.ok(before.length > 0);
    await first.stop();

    // As `npm run import` does: the commands run, no worker does.
    const cli = await createRuntime(config, { modules: appModules, startWorkers: false });
    await createPost(cli.commandContext(null), {
      authorId: null,
      input: {
        title: 'Harpsichord tuning ledger',
        content: '<p>A ledger of harpsichord tunings in the museum.</p>',
        status: 'published',
      },
    });
    t.equal(await indexOutbox(cli.documents).count(), 1, 'the CLI left the post marked');
    await cli.close();

    const second = await server();
    t.teardown(second.stop);
    for (let waited = 0; (await indexOutbox(second.runtime.documents).count()) > 0; waited += 20) {
      if (waited > 20_000) throw new Error('the owed index work was never done');
      await settle(second.runtime);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const after = await indexedKeys(second.app);
    t.same(
      after.filter((key) => !before.includes(key)),
      [after.find((key) => key.startsWith('blog_post-'))].filter(Boolean),
      'the post the CLI created is searchable',
    );
    t.ok(
      after.some((key) => key.startsWith('blog_post-')),
      'a blog post is indexed',
    );
  },
);
