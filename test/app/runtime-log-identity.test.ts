import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { appModules } from '../../app/modules.js';
import { createRuntime } from '../../app/runtime.js';
import { OtherLogError, readModelsStamp } from '../../infra/log-identity.js';
import { eventLogFile, readModelsFile } from '../../infra/select.js';
import { vectorIndexFile } from '../../infra/vector-index/select.js';
import { testConfig } from '../test-config.js';
import { runCli } from '../e2e/process.js';

t.setTimeout(300_000);

/** Removes a SQLite file with its WAL and shared memory. */
function removeSqlite(file: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
}

/** Starts a runtime on the folder and closes it: its log, read models (and with workers, vector index) stamped. */
async function startAndStop(dataDir: string, startWorkers = false): Promise<string> {
  const runtime = await createRuntime(testConfig(dataDir), { modules: appModules, startWorkers });
  const id = await runtime.eventStore.identity();
  await runtime.close();
  return id;
}

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    async (runtime) => {
      await (runtime as { close(): Promise<void> }).close();
      return null;
    },
    (error: unknown) => error,
  );
}

t.test('a runtime on read models of another log is refused before it folds; the same log starts', async (t) => {
  const dir = t.testdir();
  const [a, b] = [join(dir, 'a'), join(dir, 'b')];
  const first = await startAndStop(a);
  const second = await startAndStop(b);
  t.equal(await startAndStop(a), first, 'the same log starts again');

  // DATA_DIR a's read models beside DATA_DIR b's log.
  removeSqlite(eventLogFile(testConfig(a)));
  copyFileSync(eventLogFile(testConfig(b)), eventLogFile(testConfig(a)));
  const error = await refusal(createRuntime(testConfig(a), { modules: appModules, startWorkers: false }));
  t.ok(error instanceof OtherLogError, 'refused');
  const message = (error as Error).message;
  for (const named of [first, second, eventLogFile(testConfig(a)), readModelsFile(testConfig(a))])
    t.ok(message.includes(named), `names ${named}`);

  // A rebuild's runtime is not refused: it drops those read models whole before anything folds,
  // and bin/rebuild.ts stamps them once it has replayed the log.
  const rebuild = await createRuntime(testConfig(a), {
    modules: appModules,
    startWorkers: false,
    rebuildsReadModels: true,
  });
  await rebuild.projections.stop();
  t.equal(await readModelsStamp(rebuild.documents, testConfig(a)).read(), null, 'the stamp went with them');
  await rebuild.close();
});

t.test('a server runtime on a vector index of another log is refused; reindexing is the way out', async (t) => {
  const dir = t.testdir();
  const [a, b] = [join(dir, 'a'), join(dir, 'b')];
  const first = await startAndStop(a, true);
  const second = await startAndStop(b, true);
  // DATA_DIR a's vector index in DATA_DIR b, whose read models are its own log's.
  removeSqlite(vectorIndexFile(testConfig(b)));
  copyFileSync(vectorIndexFile(testConfig(a)), vectorIndexFile(testConfig(b)));
  const error = await refusal(createRuntime(testConfig(b), { modules: appModules }));
  t.ok(error instanceof OtherLogError, 'refused');
  const message = (error as Error).message;
  for (const named of [first, second, vectorIndexFile(testConfig(b))]) t.ok(message.includes(named), `names ${named}`);
  t.match(message, /npm run reindex/);
  // The CLIs index nothing: they start. The reindex CLI fills the index again from b's read
  // models and stamps it with b's log, after which the server runtime starts.
  t.equal(await startAndStop(b), second);
  const reindexed = await runCli('reindex.ts', [], { DATA_DIR: b });
  t.equal(reindexed.code, 0, reindexed.stderr);
  t.equal(await startAndStop(b, true), second, 'the server runtime starts on the reindexed index');
});
