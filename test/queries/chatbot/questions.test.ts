import t, { type Test } from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FixedClock } from '../../../infra/clock/port.js';
import { SqliteQuestionLog } from '../../../infra/question-log/sqlite.js';
import type { CitedResource, QuestionLog } from '../../../infra/question-log/port.js';
import { PatronQuestions } from '../../../queries/chatbot/questions.js';

const DAY = 24 * 60 * 60 * 1000;
const START = new Date('2026-03-01T12:00:00.000Z');
const silent = { warn: () => undefined, info: () => undefined };

const violin: CitedResource = { resource_type: 'item', resource_id: 101, title: 'Stradivari violin', url: '/item/101' };
const map: CitedResource = { resource_type: 'item', resource_id: 100, title: 'Map of Lisbon', url: '/s/main/item/100' };
const visit: CitedResource = {
  resource_type: 'site_page',
  resource_id: 5,
  title: 'Visiting the museum',
  url: '/page/visit',
};

function setUp(t: Test, retentionDays = 90) {
  const dir = t.testdir();
  const file = join(dir, 'chatbot-questions.sqlite');
  const log = new SqliteQuestionLog(file);
  t.teardown(() => log.close());
  const clock = new FixedClock(START);
  const questions = new PatronQuestions({ log, clock, retentionDays, logger: silent });
  const ask = async (question: string, sources: CitedResource[] = [], siteId?: number) =>
    questions.recorded({ question, siteId }, { sources });
  /** Every byte of the file and its write-ahead log, as text a question could be found in. */
  const bytesOnDisk = () =>
    readdirSync(dir)
      .map((name) => readFileSync(join(dir, name)).toString('latin1'))
      .join('');
  return { log, clock, questions, ask, bytesOnDisk };
}

t.test('records the question, its time, site, citations and whether it answered; newest first', async (t) => {
  const { clock, questions, ask } = setUp(t);
  const answer = { answer_html: '<p>x</p>', sources: [Object.assign({ citation_num: 1, snippet: 's' }, violin)] };
  t.equal(
    await questions.recorded({ question: 'Who made the violin?', siteId: 1 }, answer),
    answer,
    'the answer is handed back as it is',
  );
  clock.advance(1000);
  await ask('Where is the toilet?');
  const page = await questions.list({}, 0, 10);
  t.equal(page.total, 2);
  t.same(
    page.questions.map((q) => [q.question, q.siteId, q.answered, q.askedAt.toISOString()]),
    [
      ['Where is the toilet?', null, false, new Date(START.getTime() + 1000).toISOString()],
      ['Who made the violin?', 1, true, START.toISOString()],
    ],
  );
  t.same(page.questions[1].sources, [violin], 'only the resource fields, no snippet');
  t.same(
    (await questions.list({ answered: false }, 0, 10)).questions.map((q) => q.question),
    ['Where is the toilet?'],
    'a filter goes to the log (the filters themselves: test/infra/question-log.contract.test.ts)',
  );
});

t.test('retention: not served past its days, then deleted for good, text and all', async (t) => {
  const { clock, questions, ask, bytesOnDisk } = setUp(t, 90);
  await ask('Is my neighbour Zebulon Quartermaine a member?', [visit]);
  clock.advance(10 * DAY);
  await ask('Who made the violin?', [violin]);
  t.match(bytesOnDisk(), /Zebulon Quartermaine/, 'the text is on disk while kept');

  clock.set(new Date(START.getTime() + 90 * DAY - 1));
  t.equal((await questions.list({}, 0, 10)).total, 2, 'kept up to its 90th day');
  clock.advance(2);
  t.same(
    (await questions.list({}, 0, 10)).questions.map((q) => q.question),
    ['Who made the violin?'],
    'not served once past, before any sweep',
  );
  t.equal((await questions.summary({}, 10)).questions, 1, 'nor summarised');

  t.equal(await questions.sweep(), 1, 'the sweep deletes the expired one');
  t.equal(await questions.sweep(), 0);
  t.notMatch(bytesOnDisk(), /Zebulon/, 'no byte of it is left in the file or its write-ahead log');
  t.notMatch(bytesOnDisk(), /Visiting the museum/, 'nor of its citations');
  t.match(bytesOnDisk(), /Who made the violin/, 'the kept one stays');

  clock.advance(10 * DAY);
  t.equal(await questions.sweep(), 1);
  t.equal((await questions.list({}, 0, 10)).total, 0);
});

t.test('a retention of 0 days records nothing and the sweep drops what an earlier setting kept', async (t) => {
  const dir = t.testdir();
  const log = new SqliteQuestionLog(join(dir, 'q.sqlite'));
  t.teardown(() => log.close());
  const clock = new FixedClock(START);
  await new PatronQuestions({ log, clock, retentionDays: 90, logger: silent }).recorded(
    { question: 'kept before' },
    { sources: [] },
  );
  const none = new PatronQuestions({ log, clock, retentionDays: 0, logger: silent });
  await none.recorded({ question: 'not kept' }, { sources: [violin] });
  t.equal(await log.count({}), 1, 'nothing recorded with 0 days');
  t.equal((await none.list({}, 0, 10)).total, 0, 'nothing served');
  t.equal(await none.sweep(), 1);
  t.equal(await log.count({}), 0);
});

t.test('a failure to record is counted, logged once per run of failures, and the answer still goes out', async (t) => {
  const real = new SqliteQuestionLog(join(t.testdir(), 'q.sqlite'));
  t.teardown(() => real.close());
  let full = true;
  // The log as on a full disk: record refuses with SQLite's code until there is room again.
  const log: QuestionLog = {
    record: async (entry) => {
      if (full) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      await real.record(entry);
    },
    list: (filter, skip, limit) => real.list(filter, skip, limit),
    texts: (filter) => real.texts(filter),
    count: (filter) => real.count(filter),
    mostCited: (filter, limit) => real.mostCited(filter, limit),
    mostAskedUnanswered: (filter, limit) => real.mostAskedUnanswered(filter, limit),
    deleteAskedBefore: (cutoff) => real.deleteAskedBefore(cutoff),
    close: () => real.close(),
  };
  const logged: string[] = [];
  const questions = new PatronQuestions({
    log,
    clock: new FixedClock(START),
    retentionDays: 90,
    logger: {
      warn: (_d, message) => logged.push(`warn: ${message}`),
      info: (_d, message) => logged.push(`info: ${message}`),
    },
  });
  const answer = { sources: [violin] };
  t.equal(await questions.recorded({ question: 'first' }, answer), answer);
  t.equal(await questions.recorded({ question: 'second' }, answer), answer);
  t.equal(questions.notRecorded, 2);
  full = false;
  await questions.recorded({ question: 'third' }, answer);
  await questions.recorded({ question: 'fourth' }, answer);
  t.same(logged, [
    'warn: chatbot questions cannot be recorded: answered unrecorded meanwhile',
    'info: chatbot questions are recorded again',
  ]);
  t.equal(await real.count({}), 2, 'recording resumed by itself');
  t.equal(questions.notRecorded, 2);
});

t.test('summary of a seeded set: topics, most cited resources, unanswered most asked', async (t) => {
  const { clock, questions, ask } = setUp(t);
  const seeded: [string, CitedResource[], number?][] = [
    ['Who made the violin?', [violin], 1],
    ['How old is the violin?', [violin], 1],
    ['Is the violin on display?', [violin, visit], 1],
    ['Show me maps of Lisbon', [map], 1],
    ['Old maps of Lisbon harbour', [map, violin], 2],
    ['When are you open?', [visit], 2],
    ['Do you have dinosaur bones?', [], 1],
    ['do you have  Dinosaur bones', [], 2],
    ['Do you have dinosaur bones!', [], 1],
    ['Where can I park?', [], 2],
    ['Where can I park', [], 1],
    ['Is there a cafe?', [], 1],
  ];
  for (const [question, sources, site] of seeded) {
    await ask(question, sources, site);
    clock.advance(60_000);
  }
  const summary = await questions.summary({}, 3);
  t.equal(summary.questions, 12);
  t.equal(summary.answered, 6);
  t.equal(summary.unanswered, 6);
  t.same(summary.topics, [
    { word: 'bones', questions: 3 },
    { word: 'dinosaur', questions: 3 },
    { word: 'violin', questions: 3 },
  ]);
  t.same(summary.most_cited, [
    { resource_type: 'item', resource_id: 101, title: 'Stradivari violin', citations: 4 },
    { resource_type: 'item', resource_id: 100, title: 'Map of Lisbon', citations: 2 },
    { resource_type: 'site_page', resource_id: 5, title: 'Visiting the museum', citations: 2 },
  ]);
  t.same(
    summary.unanswered_most_asked.map((u) => [u.question, u.count]),
    [
      ['Do you have dinosaur bones!', 3],
      ['Where can I park', 2],
      ['Is there a cafe?', 1],
    ],
    'the unanswered most asked (the grouping itself: the contract suite)',
  );

  const site2 = await questions.summary({ siteId: 2 }, 10);
  t.equal(site2.questions, 4, 'a filter goes to every part');
  t.equal(site2.most_cited.length, 3);
  t.equal(site2.unanswered_most_asked.length, 2);

  const firstThree = await questions.summary({ until: new Date(START.getTime() + 3 * 60_000) }, 2);
  t.same(firstThree.topics, [
    { word: 'violin', questions: 3 },
    { word: 'display', questions: 1 },
  ]);
});
