import t from 'tap';
import { importFixture, validateFixture } from '../../../app/import-fixture.js';
import { buildTestApp } from '../../helper.js';
import { directoryFixture } from '../../routes/directory/fixture.js';

type Dir = ReturnType<typeof directoryFixture>;

t.test('directory fixture validation names the JSON path; nothing is imported on refusal', async (t) => {
  const { runtime } = await buildTestApp(t);
  const firstProblem = async (change: (dir: Dir) => unknown) => {
    const dir = directoryFixture();
    const changed = (change(dir) ?? dir) as object;
    const problems = await validateFixture(runtime, { directory: changed });
    return problems[0] ? `${problems[0].path}: ${problems[0].message}` : '';
  };
  t.match(
    await firstProblem((d) => {
      (d.databases[0] as Record<string, unknown>).access = 'free';
    }),
    /^\$\.directory\.databases\[0\]\.access/,
  );
  t.match(
    await firstProblem((d) => {
      d.library.plan = 'gold';
    }),
    /^\$\.directory\.library\.plan/,
  );
  t.match(
    await firstProblem((d) => {
      d.library.brand_color = 'red';
    }),
    /^\$\.directory\.library\.brand_color/,
  );
  t.match(
    await firstProblem((d) => {
      d.library.proxy_prefix = 'nope';
    }),
    /^\$\.directory\.library\.proxy_prefix/,
  );
  t.match(
    await firstProblem((d) => {
      d.databases[2].subjects = ['history', 'cooking'];
    }),
    /^\$\.directory\.databases\[2\]\.subjects\[1\]: Unknown subject "cooking"/,
  );
  t.match(
    await firstProblem((d) => {
      d.databases[1].types = ['maps'];
    }),
    /^\$\.directory\.databases\[1\]\.types\[0\]: Unknown type/,
  );
  t.match(
    await firstProblem((d) => {
      d.lists[0].databases.push('ghost');
    }),
    /^\$\.directory\.lists\[0\]\.databases\[4\]: Unknown database "ghost"/,
  );
  t.match(
    await firstProblem((d) => {
      d.lists[0].databases.push('jstor');
    }),
    /^\$\.directory\.lists\[0\]\.databases\[4\]: .*twice/,
  );
  t.match(
    await firstProblem((d) => {
      d.databases[3].url = 'mailto:x@example.org';
    }),
    /^\$\.directory\.databases\[3\]\.url/,
  );
  t.match(
    await firstProblem((d) => {
      d.subjects.push({ handle: 'history', name: 'Again' });
    }),
    /^\$\.directory\.subjects\[5\]\.handle: Duplicate/,
  );
  t.match(
    await firstProblem((d) => {
      d.tokens[1].allowed_origins = ['https://ok.example', 'not-an-origin'];
    }),
    /^\$\.directory\.tokens\[1\]\.allowed_origins\[1\]/,
  );
  t.match(
    await firstProblem((d) => {
      d.tokens.push({ ...d.tokens[0] });
    }),
    /^\$\.directory\.tokens\[2\]\.token: Duplicate/,
  );
  t.match(
    await firstProblem((d) => {
      d.databases[0].audience = ['faculty', ' '];
    }),
    /^\$\.directory\.databases\[0\]\.audience: Every entry must be a non-empty text of at most 100 characters\./,
    "a database's own rules (the decider's) are checked before anything is written",
  );
  t.match(
    await firstProblem((d) => {
      d.lists[0].name = 'x'.repeat(201);
    }),
    /^\$\.directory\.lists\[0\]\.name/,
    'a name is held to the limit the decider holds it to',
  );
  t.match(await firstProblem((d) => ({ ...d, extra: 1 })), /^\$\.directory/);
  t.match(await firstProblem(() => 'nope'), /^\$\.directory/);

  const bad = directoryFixture();
  bad.lists[0].databases.push('ghost');
  await t.rejects(importFixture(runtime, { directory: bad }), { message: /Unknown database "ghost"/ });
  t.equal(await runtime.eventStore.countEvents(), 0, 'nothing was written');

  await importFixture(runtime, { directory: directoryFixture() });
  t.ok((await runtime.eventStore.countEvents()) > 0);
  const again = await validateFixture(runtime, { directory: { databases: [directoryFixture().databases[0]] } });
  t.match(
    `${again[0].path}: ${again[0].message}`,
    /^\$\.directory\.databases\[0\]\.handle: Database "jstor" already exists/,
    'existing handles are refused',
  );
  const token = await validateFixture(runtime, { directory: { tokens: [directoryFixture().tokens[0]] } });
  t.match(token[0].path, '$.directory.tokens[0].token', 'a token already in use is refused');
  const reference = await validateFixture(runtime, {
    directory: { lists: [{ handle: 'more', name: 'More', databases: ['jstor'] }] },
  });
  t.same(reference, [], 'references may point at what is already stored');
});
