import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { MongoDocumentStore } from '../../infra/document-store/mongo.js';
import { freePort } from '../../infra/net/free-port.js';
import { ROOT, runProcess, type RunResult } from '../e2e/process.js';

/**
 * stack/mongo/start.sh and stop.sh, the MongoDB wire-protocol stand-in's scripts (mongo-java-server,
 * not MongoDB). They need Java and Maven; without them the test skips.
 */

function onPath(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const MISSING = ['java', 'mvn'].filter((command) => !onPath(command));
const SKIP = MISSING.length ? `${MISSING.join(' and ')} not installed` : false;

/** One STACK_DIR for the file, so the Maven build (tens of seconds) is done once. */
const STACK_DIR = t.testdir();

function script(name: 'start.sh' | 'stop.sh', env: Record<string, string>): Promise<RunResult> {
  return runProcess('bash', [join(ROOT, 'stack', 'mongo', name)], { env: { ...process.env, ...env } });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

t.test(
  'the stand-in starts, answers, says so once, keeps its data across a restart, and stops',
  { skip: SKIP },
  async (t) => {
    const env = { STACK_DIR, MONGO_PORT: String(await freePort()) };
    const dir = join(STACK_DIR, 'mongo');
    t.teardown(() => script('stop.sh', env));
    const url = `mongodb://127.0.0.1:${env.MONGO_PORT}/collections`;

    const started = await script('start.sh', env);
    t.equal(started.code, 0, 'starts', { stderr: started.stderr });
    t.equal(started.stdout, `MONGO_URL=${url}\n`, 'one line on stdout, nothing else');
    t.equal(started.stderr, '', 'and nothing on stderr: the build and the server write to their logs');
    const pid = Number(readFileSync(join(dir, 'pid'), 'utf8'));
    t.ok(alive(pid), 'the pid file names the running stand-in');

    const store = await MongoDocumentStore.connect(url);
    await store.collection<{ _id: number; title: string }>('kept').put({ _id: 1, title: 'kept' });
    await store.close();

    const again = await script('start.sh', env);
    t.equal(again.stdout, `MONGO_URL=${url}\n`, 'started again while it runs: the same line');
    t.equal(Number(readFileSync(join(dir, 'pid'), 'utf8')), pid, 'and no second process');

    const stopped = await script('stop.sh', env);
    t.equal(stopped.code, 0, 'stops', { stderr: stopped.stderr });
    t.notOk(alive(pid), 'stopped');
    t.notOk(existsSync(join(dir, 'pid')), 'the pid file is gone');

    t.equal((await script('start.sh', env)).code, 0, 'starts again');
    const reopened = await MongoDocumentStore.connect(url);
    t.teardown(() => reopened.close());
    t.same(
      await reopened.collection('kept').find({}),
      [{ _id: 1, title: 'kept' }],
      'the data outlived the restart (H2 backend)',
    );
  },
);

t.test(
  'a stand-in that never answers: a bounded wait, one line naming the log, and it is stopped',
  { skip: SKIP },
  async (t) => {
    const env = { STACK_DIR, MONGO_PORT: String(await freePort()), MONGO_READY_TIMEOUT: '2' };
    // A "java" that runs but never listens, as a hung JVM would (a sleep of a length nothing else
    // on the machine is likely to run, since the check below looks for it among all processes).
    const hung = join(t.testdir(), 'hung-java');
    writeFileSync(hung, '#!/bin/sh\nexec sleep 1207\n');
    chmodSync(hung, 0o755);
    const log = join(STACK_DIR, 'mongo', 'mongo.log');
    // Built before the clock starts, so the bound measured is the wait's.
    t.equal((await script('start.sh', env)).code, 0, 'built and started once');
    t.equal((await script('stop.sh', env)).code, 0, 'stopped');

    const started = Date.now();
    const run = await script('start.sh', { ...env, MONGO_STAND_IN_JAVA: hung });
    t.equal(run.code, 1, 'exits with 1');
    t.equal(run.stdout, '', 'no MONGO_URL line');
    t.match(run.stderr, `mongo stand-in did not become ready within 2 s; see ${log}`);
    t.ok(Date.now() - started < 30_000, `bounded (${Date.now() - started} ms)`);
    t.notOk(existsSync(join(STACK_DIR, 'mongo', 'pid')), 'no pid file left');
    const sleeping = execFileSync('sh', ['-c', `pgrep -f "^sleep 1207$" || true`], { encoding: 'utf8' }).trim();
    t.equal(sleeping, '', 'what it started is stopped');
  },
);
