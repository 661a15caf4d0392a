import { execFileSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { freePort, importFixtureFile, ROOT, runProcess, startServer, type RunResult } from '../process.js';
import { eventually, freshDataDir, skipUnlessStack, stackEnv } from './stack.js';

/**
 * Issue 37, item 3: an engine stopped under the running server. The test starts a MongoDB
 * stand-in of its own (mongo-java-server, not MongoDB: stack/mongo/) on a private port and
 * stops only that one; the shared Kafka, Elasticsearch and Redis stay up.
 */
const fixture = {
  users: [
    {
      id: 1,
      email: 'editor@example.org',
      name: 'Ed',
      role: 'editor',
      password: 'editor-pass',
      api_keys: [{ identity: 'ED', credential: 'ED-SECRET' }],
    },
  ],
  sites: [{ id: 1, slug: 'main', title: 'Main site' }],
  blog: { settings: { comments_enabled: true }, categories: [], posts: [], comments: [] },
};
const KEY = 'key_identity=ED&key_credential=ED-SECRET';

// The stand-in's Maven build (once per STACK_DIR), a server start, the stand-in stopped and started again.
t.setTimeout(400_000);

function onPath(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const missingTools = ['java', 'mvn'].filter((command) => !onPath(command));
const skip =
  skipUnlessStack() ||
  (missingTools.length
    ? `${missingTools.join(' and ')} not installed (the private MongoDB stand-in needs them)`
    : false);

/**
 * The shared stack's compiled stand-in (stack/up.sh's, under STACK_DIR), copied with its build
 * stamp so start.sh skips the Maven build (10 s on a quiet machine, a minute on a busy one); it
 * builds as usual when there is none.
 */
function reuseSharedBuild(stackDir: string): void {
  const shared = join(process.env.STACK_DIR ?? '/tmp/collections-stack', 'mongo');
  if (!existsSync(join(shared, 'build.stamp'))) return;
  for (const part of ['classes', 'lib', 'build.stamp'])
    cpSync(join(shared, part), join(stackDir, 'mongo', part), { recursive: true });
}

interface Answer {
  status: number;
  body: unknown;
}

interface Health {
  status: string;
  ports: Record<string, { adapter: string; reachable: boolean }>;
}

t.test(
  'MongoDB stopped under the server: reported, writes refused cleanly, recovery with no acknowledged write lost',
  { skip },
  async (t) => {
    const stackDir = t.testdir();
    const standIn = { STACK_DIR: stackDir, MONGO_PORT: String(await freePort()) };
    const script = (name: 'start.sh' | 'stop.sh'): Promise<RunResult> =>
      runProcess('bash', [join(ROOT, 'stack', 'mongo', name)], { env: { ...process.env, ...standIn } });
    t.teardown(() => script('stop.sh'));
    reuseSharedBuild(stackDir);
    const started = await script('start.sh');
    t.equal(started.code, 0, `the private stand-in starts: ${started.stderr}`);
    const privateUrl = started.stdout.trim().replace(/^MONGO_URL=/, '');

    const dataDir = freshDataDir(join(stackDir, 'deployments'));
    const shared = stackEnv(dataDir);
    const mongo = new URL(privateUrl);
    mongo.pathname = new URL(shared.MONGO_URL).pathname;
    const env = { ...shared, MONGO_URL: mongo.toString() };
    const imported = await importFixtureFile(dataDir, fixture, 'production-engine-down');
    t.equal(imported.code, 0, `import exits 0: ${imported.stderr}`);
    const server = await startServer(env, 120_000);
    t.teardown(() => server.stop('SIGKILL'));

    const call = async (path: string, init: RequestInit = {}): Promise<Answer> => {
      // A hang would only end at the test's timeout: a refusal must come well before this.
      const res = await fetch(`${server.baseUrl}${path}`, {
        ...init,
        headers: { 'content-type': 'application/json' },
        signal: AbortSignal.timeout(45_000),
      });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: kept as text for the messages
      }
      return { status: res.status, body };
    };
    const create = (title: string) =>
      call(`/api/blog_posts?${KEY}`, {
        method: 'POST',
        body: JSON.stringify({ title, content: `<p>${title}</p>`, status: 'published' }),
      });
    const health = async () => {
      const res = await call('/health');
      return { status: res.status, body: res.body as Health };
    };

    const up = await health();
    t.equal(up.status, 200);
    t.match(up.body, {
      status: 'ok',
      ports: {
        document_store: { adapter: 'production', reachable: true },
        event_bus: { adapter: 'production', reachable: true },
        vector_index: { adapter: 'production', reachable: true },
        job_queue: { adapter: 'production', reachable: true },
      },
    });

    const acknowledged: number[] = [];
    const before = await create('Written before the outage');
    t.equal(before.status, 201, `a write with every engine up: ${JSON.stringify(before.body)}`);
    acknowledged.push((before.body as { 'o:id': number })['o:id']);

    const stopped = await script('stop.sh');
    t.equal(stopped.code, 0, `the private stand-in stops: ${stopped.stderr}`);

    const down = await eventually(health, (h) => h.status === 503);
    t.equal(down.status, 503, '/health answers 503 while the document store is away');
    t.match(
      down.body,
      {
        status: 'unavailable',
        ports: { document_store: { adapter: 'production', reachable: false }, event_store: { reachable: true } },
      },
      'and names it unreachable',
    );

    const during = await create('Written during the outage');
    t.not(during.status, 201, 'a write that cannot reach the read models is not acknowledged');
    t.ok(
      during.status === 503,
      `it is refused with 503, not an error of the server: ${during.status} ${JSON.stringify(during.body)}`,
    );
    const read = await call(`/api/blog_posts?${KEY}`);
    t.equal(read.status, 503, `a read answers 503 too: ${JSON.stringify(read.body)}`);

    const restarted = await script('start.sh');
    t.equal(restarted.code, 0, `the private stand-in starts again: ${restarted.stderr}`);
    const back = await eventually(health, (h) => h.status === 200 && h.body.status === 'ok', 60_000);
    t.match(
      back,
      { status: 200, body: { status: 'ok', ports: { document_store: { reachable: true } } } },
      '/health is ok again once it is back',
    );

    const after = await eventually(
      () => create('Written after the outage'),
      (a) => a.status === 201,
      30_000,
    );
    t.equal(after.status, 201, `writes are taken again: ${JSON.stringify(after.body)}`);
    acknowledged.push((after.body as { 'o:id': number })['o:id']);
    for (const id of acknowledged) {
      const one = await call(`/api/blog_posts/${id}?${KEY}`);
      t.equal(one.status, 200, `acknowledged post ${id} is there`);
    }
    const listed = await eventually(
      () => call(`/api/blog_posts?${KEY}&per_page=50`),
      (a) =>
        a.status === 200 && acknowledged.every((id) => (a.body as { 'o:id': number }[]).some((p) => p['o:id'] === id)),
    );
    const ids = (listed.body as { 'o:id': number }[]).map((p) => p['o:id']);
    t.ok(
      acknowledged.every((id) => ids.includes(id)),
      `every acknowledged write is listed (${ids.join(' ')})`,
    );
    const titles = (listed.body as { 'o:title': string }[]).map((p) => p['o:title']);
    t.notOk(
      titles.includes('Written during the outage'),
      'and the refused one did not appear later: a 503 means not written',
    );
  },
);
