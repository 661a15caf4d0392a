import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../../e2e/process.js';
import { json } from '../../helper.js';
import { auth, BELOW_EDITOR, buildBlogApp, type Caller } from './fixture.js';

/**
 * docs/API.md's table "Blog posts below Editor", read from the file and checked cell by cell
 * against both blog APIs for every caller below Editor: what the docs say is what they do.
 */

/** One post of each kind in the blog fixture (test/routes/blog/fixture.ts), at its fixed time. */
const POST_OF: Record<string, number> = { published: 1, scheduled: 4, draft: 2, pending: 3 };

function documentedTable(): string[][] {
  const doc = readFileSync(join(ROOT, 'docs', 'API.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Blog posts below Editor'));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| post '))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

t.test("docs/API.md's blog visibility table holds for both APIs", async (t) => {
  const rows = documentedTable();
  t.same(
    rows.map(([kind]) => kind),
    Object.keys(POST_OF),
    'the table has a row for each kind of post',
  );
  const { app } = await buildBlogApp(t);
  const callers: Caller[] = [...BELOW_EDITOR, 'anonymous'];
  for (const caller of callers) {
    const nativeList = json<{ 'o:id': number }[]>(
      await app.inject({ url: `/api/blog_posts?per_page=100${auth(caller, '&')}` }),
    ).map((p) => p['o:id']);
    const legacyList = json<{ data: { id: number }[] }>(
      await app.inject({ url: '/api/blog/posts?per_page=100' }),
    ).data.map((p) => p.id);
    for (const [kind, native, legacy] of rows) {
      const id = POST_OF[kind ?? ''] ?? 0;
      const seen = async (cell: string | undefined, listed: number[], url: string) => {
        const status = (await app.inject({ url })).statusCode;
        const actual = `${listed.includes(id) ? 'listed' : 'not listed'}, ${status === 200 ? 'read' : String(status)}`;
        t.equal(actual, cell, `${caller}, ${kind} post, ${url.split('?')[0]}`);
      };
      await seen(native, nativeList, `/api/blog_posts/${id}${auth(caller)}`);
      await seen(legacy, legacyList, `/api/blog/posts/${id}`);
    }
  }
});
