import { cpSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import type { ProjectionStartStats } from '../../projections/runner.js';
import { ROLE_USERS } from '../helper.js';
import { importFixtureFile, runCli, startServer, type ServerProcess } from './process.js';

// Several child processes each compile the app with tsx: on a busy machine that is slow, never stuck.
t.setTimeout(600_000);

const ADMIN_KEY = 'key_identity=global_admin-id&key_credential=global_admin-secret';
const fixture = {
  users: ROLE_USERS.slice(0, 1),
  sites: [{ id: 1, slug: 'main', title: 'Main site' }],
  items: Array.from({ length: 50 }, (_, i) => ({ id: 100 + i, title: `Item ${i}`, site_ids: [1] })),
};

/** The runner's figures from the start's "Read models ready" log line. */
async function readyStats(server: ServerProcess): Promise<ProjectionStartStats[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    for (const line of server.stdout().split('\n')) {
      if (!line.includes('Read models ready')) continue;
      return (JSON.parse(line) as { projections: ProjectionStartStats[] }).projections;
    }
    if (Date.now() > deadline) throw new Error(`no "Read models ready" line in: ${server.stdout().slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The stamp of the log the read models were built from (infra/log-identity.ts): where and when differ between copies. */
const LOG_STAMP = 'docs__log_identity';

/**
 * Every read-model collection's documents, by table, in key order; an empty table (made by a
 * read) counts as none. Not the log stamp: its log is compared by `stampedLog`.
 */
function readModels(dataDir: string): Record<string, unknown[]> {
  const db = new Database(join(dataDir, 'read-models.sqlite'), { readonly: true });
  try {
    // The collections' tables: (_id, doc) rows. Not the text and element indexes beside them.
    const tables = db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'docs\\_%' ESCAPE '\\' AND sql LIKE '%(_id PRIMARY KEY NOT NULL, doc TEXT NOT NULL)%' ORDER BY name`,
      )
      .pluck()
      .all() as string[];
    const collections = tables.map(
      (table) =>
        [
          table,
          (db.prepare(`SELECT doc FROM "${table}" ORDER BY _id`).pluck().all() as string[]).map(
            (doc) => JSON.parse(doc) as unknown,
          ),
        ] as const,
    );
    return Object.fromEntries(collections.filter(([table, docs]) => docs.length > 0 && table !== LOG_STAMP));
  } finally {
    db.close();
  }
}

/** The identity of the log the read models say they were built from. */
function stampedLog(dataDir: string): unknown {
  const db = new Database(join(dataDir, 'read-models.sqlite'), { readonly: true });
  try {
    const doc = db.prepare(`SELECT doc FROM "${LOG_STAMP}"`).pluck().get() as string;
    return (JSON.parse(doc) as { log: unknown }).log;
  } finally {
    db.close();
  }
}

async function importFixture(dataDir: string): Promise<void> {
  const imported = await importFixtureFile(dataDir, fixture, 'fixture');
  if (imported.code !== 0) throw new Error(`import: ${imported.stderr}`);
}

t.test('a restart resumes from the checkpoints: nothing at or below them is applied again', async (t) => {
  const dataDir = join(t.testdir(), 'data');
  await importFixture(dataDir);
  const first = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  t.teardown(() => first.stop('SIGKILL'));
  const firstStats = await readyStats(first);
  t.ok(firstStats.length > 0);
  const created = await fetch(`${first.baseUrl}/api/items?${ADMIN_KEY}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ 'o:title': 'Written before the restart' }),
  });
  t.equal(created.status, 201);
  const id = ((await created.json()) as { 'o:id': number })['o:id'];
  await first.stop();

  const second = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  t.teardown(() => second.stop('SIGKILL'));
  const item = await fetch(`${second.baseUrl}/api/items/${id}`);
  t.equal(item.status, 200, 'it answers as soon as it listens');
  t.equal(((await item.json()) as Record<string, unknown>)['o:title'], 'Written before the restart');
  for (const stats of await readyStats(second)) {
    t.ok(stats.resumedFrom > 0, `${stats.name} resumed from its checkpoint (${stats.resumedFrom})`);
    t.ok(
      stats.firstApplied === null || stats.firstApplied > stats.resumedFrom,
      `${stats.name} applied nothing at or below its checkpoint`,
    );
  }
  const applied = (await readyStats(second)).reduce((n, s) => n + s.applied, 0);
  const replayed = firstStats.reduce((n, s) => n + s.applied, 0);
  t.ok(
    applied < 20,
    `the restart applied ${applied} event applications (the shutdown's own events at most), not the log again`,
  );
  t.ok(replayed === 0 || replayed > applied, 'fewer than a replay');
  await second.stop();
});

t.test('killed during a stream of writes, the restarted read models equal a rebuild', async (t) => {
  const dir = t.testdir();
  const dataDir = join(dir, 'data');
  await importFixture(dataDir);
  const server = await startServer({ DATA_DIR: dataDir });
  t.teardown(() => server.stop('SIGKILL'));
  let written = 0;
  let stopped = false;
  const writer = async (n: number) => {
    for (let i = 0; !stopped; i++) {
      const res = await fetch(`${server.baseUrl}/api/items?${ADMIN_KEY}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ 'o:title': `Writer ${n} item ${i}`, 'o:site': [{ 'o:id': 1 }] }),
      }).catch(() => null);
      if (!res) return;
      await res.arrayBuffer();
      if (res.status === 201) written++;
      const patch = await fetch(`${server.baseUrl}/api/items/${100 + ((n * 7 + i) % 50)}?${ADMIN_KEY}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ 'o:description': `changed by ${n} at ${i}` }),
      }).catch(() => null);
      if (!patch) return;
      await patch.arrayBuffer();
    }
  };
  const writers = [0, 1, 2, 3].map((n) => writer(n));
  while (written < 60) await new Promise((r) => setTimeout(r, 10));
  await server.stop('SIGKILL');
  stopped = true;
  await Promise.all(writers);
  t.ok(written >= 60, `${written} items written before the kill`);

  const restarted = await startServer({ DATA_DIR: dataDir });
  t.equal((await fetch(`${restarted.baseUrl}/api/items/100`)).status, 200);
  await restarted.stop();
  const caughtUp = readModels(dataDir);

  // A rebuild of a copy, and a replay into no read models at all (every file removed first).
  const copy = join(dir, 'rebuilt');
  cpSync(dataDir, copy, { recursive: true });
  const rebuilt = await runCli('rebuild.ts', [], { DATA_DIR: copy });
  t.equal(rebuilt.code, 0, rebuilt.stderr);
  t.same(readModels(copy), caughtUp, 'a rebuild makes every collection the same, and keeps the index outbox as it was');
  const scratch = join(dir, 'scratch');
  cpSync(dataDir, scratch, { recursive: true });
  for (const name of readdirSync(scratch)) if (name.startsWith('read-models')) rmSync(join(scratch, name));
  const replayed = await runCli('rebuild.ts', [], { DATA_DIR: scratch });
  t.equal(replayed.code, 0, replayed.stderr);
  const fromScratch = readModels(scratch);
  t.same(Object.keys(caughtUp), Object.keys(fromScratch), 'the same collections');
  // The index outbox is work owed, not only a fold of the log: index jobs remove its marks, and a
  // replay from nothing marks every resource. What the crashed server still owed is owed there too.
  const OUTBOX = 'docs_chatbot_index_outbox';
  const ids = (table: string, models: Record<string, unknown[]>) =>
    (models[table] ?? []).map((doc) => (doc as { _id: string })._id);
  const rebuiltMarks = new Set(ids(OUTBOX, fromScratch));
  t.same(
    ids(OUTBOX, caughtUp).filter((id) => !rebuiltMarks.has(id)),
    [],
    `${OUTBOX}: every mark left is one a rebuild makes`,
  );
  for (const table of Object.keys(fromScratch)) {
    if (table !== OUTBOX) t.same(caughtUp[table], fromScratch[table], `${table}: the same documents`);
  }
  t.ok(stampedLog(dataDir), 'the read models name their log');
  t.equal(stampedLog(copy), stampedLog(dataDir), 'a rebuild on a copy of the log: the same log');
  t.equal(stampedLog(scratch), stampedLog(dataDir), 'a replay into no read models: the same log');
  t.ok((caughtUp.docs_items ?? []).length >= 50 + written, 'every acknowledged item is there');
});

/** Each blog post's text fields as the text index must hold them, by rowid, and the text index's rows. */
function textIndexAgainstPosts(dataDir: string): {
  posts: Record<number, string[]>;
  indexed: Record<number, string[]>;
  owed: number;
} {
  const models = new Database(join(dataDir, 'read-models.sqlite'), { readonly: true });
  const text = new Database(join(dataDir, 'read-models-text.sqlite'), { readonly: true });
  try {
    const lower = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : '');
    const posts = Object.fromEntries(
      (models.prepare('SELECT rowid, doc FROM docs_blog_posts').raw().all() as [number, string][]).map(
        ([rowid, doc]) => {
          const post = JSON.parse(doc) as Record<string, unknown>;
          return [rowid, [lower(post.title), lower(post.excerpt), lower(post.content)]];
        },
      ),
    );
    const indexed = Object.fromEntries(
      (
        text.prepare('SELECT rowid, title, excerpt, content FROM docs_blog_posts__text').raw().all() as [
          number,
          string,
          string,
          string,
        ][]
      ).map(([rowid, ...texts]) => [rowid, texts]),
    );
    const owed = models
      .prepare('SELECT count(*) FROM docs_blog_posts__text_owed WHERE rowid <> 0')
      .pluck()
      .get() as number;
    return { posts, indexed, owed };
  } finally {
    models.close();
    text.close();
  }
}

t.test('killed during a stream of post writes, the restarted text index holds every post as it is', async (t) => {
  const dataDir = join(t.testdir(), 'data');
  await importFixture(dataDir);
  const server = await startServer({ DATA_DIR: dataDir });
  t.teardown(() => server.stop('SIGKILL'));
  const created: number[] = [];
  let stopped = false;
  const writer = async (n: number) => {
    for (let i = 0; !stopped; i++) {
      const res = await fetch(`${server.baseUrl}/api/blog_posts?${ADMIN_KEY}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          title: `Writer ${n} post ${i}`,
          excerpt: `Harbour ${n}-${i}`,
          content: `<p>Quay ${i}</p>`,
        }),
      }).catch(() => null);
      if (!res) return;
      const body = (await res.json().catch(() => null)) as { 'o:id'?: number } | null;
      if (res.status === 201 && typeof body?.['o:id'] === 'number') created.push(body['o:id']);
      else if (res.status !== 201) throw new Error(`create answered ${res.status}: ${JSON.stringify(body)}`);
      const target = created[(n * 7 + i) % Math.max(1, created.length)];
      if (target === undefined) continue;
      const patch = await fetch(`${server.baseUrl}/api/blog_posts/${target}?${ADMIN_KEY}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Renamed by ${n} at ${i}` }),
      }).catch(() => null);
      if (!patch) return;
      await patch.arrayBuffer();
    }
  };
  const writers = Promise.all([0, 1, 2, 3].map((n) => writer(n)));
  let failed: unknown = null;
  writers.catch((error: unknown) => (failed = error));
  while (created.length < 60 && failed === null) await new Promise((r) => setTimeout(r, 10));
  await server.stop('SIGKILL');
  stopped = true;
  await writers;

  const restarted = await startServer({ DATA_DIR: dataDir });
  const last = created[created.length - 1];
  const found = (await (
    await fetch(`${restarted.baseUrl}/api/blog_posts?search=harbour&per_page=100&${ADMIN_KEY}`)
  ).json()) as { 'o:id': number }[];
  t.ok(
    found.some((post) => post['o:id'] === last),
    'a search at once finds the last post acknowledged',
  );
  // A stop lets the thread index what is owed.
  await restarted.stop();
  const { posts, indexed, owed } = textIndexAgainstPosts(dataDir);
  t.ok(Object.keys(posts).length >= 60, `${Object.keys(posts).length} posts`);
  t.same(indexed, posts, 'the text index holds each post as its document is, and nothing else');
  t.equal(owed, 0, 'nothing is owed after the stop');
});
