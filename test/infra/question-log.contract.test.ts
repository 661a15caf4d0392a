import { join } from 'node:path';
import t from 'tap';
import {
  TEXTS_PER_READ,
  type CitedResource,
  type QuestionEntry,
  type QuestionLog,
} from '../../infra/question-log/port.js';
import { PostgresQuestionLog } from '../../infra/question-log/postgres.js';
import { SqliteQuestionLog } from '../../infra/question-log/sqlite.js';
import { dropSchema, freshSchema } from './event-store/postgres-schemas.js';

interface Context {
  testdir(): string;
  teardown(fn: () => unknown): void;
}

type Factory = (t: Context) => Promise<QuestionLog>;

/** A postgres:// URL of a database the tests may create schemas in (.ci/run sets it when PostgreSQL answers). */
const PG_EVENTSTORE_URL = process.env.PG_EVENTSTORE_URL;

const START = new Date('2026-03-01T12:00:00.000Z');
const MINUTE = 60_000;
const at = (minutes: number) => new Date(START.getTime() + minutes * MINUTE);

const violin: CitedResource = { resource_type: 'item', resource_id: 101, title: 'Stradivari violin', url: '/item/101' };
const map: CitedResource = { resource_type: 'item', resource_id: 100, title: 'Map of Lisbon', url: '/s/main/item/100' };
const visit: CitedResource = {
  resource_type: 'site_page',
  resource_id: 5,
  title: 'Visiting the museum',
  url: '/page/visit',
};

function entry(question: string, askedAt: Date, sources: CitedResource[] = [], siteId: number | null = null) {
  const asked: QuestionEntry = { question, askedAt, siteId, answered: sources.length > 0, sources };
  return asked;
}

async function all(texts: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const text of texts) out.push(text);
  return out;
}

/** The seeded set of the summary tests: a question a minute from START, in this order. */
const SEEDED: [string, CitedResource[], number][] = [
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

async function seed(log: QuestionLog): Promise<void> {
  for (const [i, [question, sources, site]] of SEEDED.entries())
    await log.record(entry(question, at(i), sources, site));
}

/** The contract every QuestionLog adapter keeps. */
function questionLogContract(name: string, factory: Factory | null, skip?: string): void {
  t.test(name, skip ? { skip } : {}, async (t) => {
    const make = factory as Factory;

    t.test('records a question with its time, site, citations in order; lists newest first', async (t) => {
      const log = await make(t);
      await log.record(entry('Who made the violin?', at(0), [violin, visit], 1));
      await log.record(entry('Where is the toilet?', at(1)));
      const page = await log.list({}, 0, 10);
      t.equal(page.total, 2);
      t.same(
        page.questions.map((q) => [q.question, q.siteId, q.answered, q.askedAt.toISOString()]),
        [
          ['Where is the toilet?', null, false, at(1).toISOString()],
          ['Who made the violin?', 1, true, at(0).toISOString()],
        ],
      );
      t.same(page.questions[1].sources, [violin, visit], 'the cited resources, in citation order');
      t.same(page.questions[0].sources, []);
      t.ok(page.questions[0].id !== page.questions[1].id, 'each its own id');
      t.same(Object.keys(page.questions[1]).sort(), ['answered', 'askedAt', 'id', 'question', 'siteId', 'sources']);
    });

    t.test('questions asked at the same moment: the one recorded last first', async (t) => {
      const log = await make(t);
      for (const question of ['one', 'two', 'three']) await log.record(entry(question, at(0)));
      t.same(
        (await log.list({}, 0, 10)).questions.map((q) => q.question),
        ['three', 'two', 'one'],
      );
    });

    t.test('keeps the text as asked, and a millisecond of its time', async (t) => {
      const log = await make(t);
      const text = "  Qu'est-ce que « l'Orrery » ? 🪐\nZweite Zeile; DROP TABLE questions; -- ";
      const moment = new Date(START.getTime() + 7);
      await log.record(entry(text, moment, [{ ...violin, title: 'Violon — 1716 “Messie”' }], 3));
      const [question] = (await log.list({}, 0, 1)).questions;
      t.equal(question.question, text);
      t.equal(question.askedAt.getTime(), moment.getTime());
      t.equal(question.sources[0].title, 'Violon — 1716 “Messie”');
      t.same(await all(log.texts({})), [text]);
    });

    t.test('filters: answered, site, since (inclusive), until (exclusive); paging and total', async (t) => {
      const log = await make(t);
      await log.record(entry('Who made the violin?', at(0), [violin], 1));
      await log.record(entry('Where is the toilet?', at(1), [], 2));
      await log.record(entry('Show me maps of Lisbon', at(2), [map]));
      const questions = async (filter: Parameters<QuestionLog['list']>[0]) =>
        (await log.list(filter, 0, 10)).questions.map((q) => q.question);
      t.same(await questions({ answered: false }), ['Where is the toilet?']);
      t.same(await questions({ answered: true }), ['Show me maps of Lisbon', 'Who made the violin?']);
      t.same(await questions({ siteId: 1 }), ['Who made the violin?']);
      t.same(await questions({ since: at(1) }), ['Show me maps of Lisbon', 'Where is the toilet?'], 'since: inclusive');
      t.same(await questions({ until: at(1) }), ['Who made the violin?'], 'until: exclusive');
      t.same(await questions({ since: at(1), until: at(2), answered: false, siteId: 2 }), ['Where is the toilet?']);
      t.same(await questions({ siteId: 3 }), []);

      const second = await log.list({}, 1, 1);
      t.same(
        second.questions.map((q) => q.question),
        ['Where is the toilet?'],
        'skip and limit page',
      );
      t.equal(second.total, 3, 'the total of every match, not of the page');
      t.same(await log.list({ answered: true }, 1, 5), {
        questions: [(await log.list({ answered: true }, 1, 1)).questions[0]],
        total: 2,
      });
      t.same(await log.list({}, 3, 10), { questions: [], total: 3 }, 'a page past the end is empty');
      t.same(await log.list({}, Number.MAX_SAFE_INTEGER, 10), { questions: [], total: 3 }, 'however far past the end');

      t.equal(await log.count({}), 3);
      t.equal(await log.count({ answered: true }), 2);
      t.equal(await log.count({ siteId: 2, answered: true }), 0);
      t.equal(await log.count({ since: at(1), until: at(2) }), 1);
    });

    t.test('texts: every matching text once, across many reads', async (t) => {
      const log = await make(t);
      const n = TEXTS_PER_READ * 2 + 3;
      const asked = Array.from({ length: n }, (_, i) => `question ${i}`);
      // A few at a time: the adapters commit one question per call.
      for (let i = 0; i < n; i += 50)
        await Promise.all(asked.slice(i, i + 50).map((q, j) => log.record(entry(q, at(i + j), [], (i + j) % 2))));
      const texts = await all(log.texts({}));
      t.equal(texts.length, n);
      t.same([...texts].sort(), [...asked].sort(), 'each once');
      const odd = await all(log.texts({ siteId: 1 }));
      t.same(odd.sort(), asked.filter((_, i) => i % 2 === 1).sort(), 'filtered');
      t.same(await all(log.texts({ since: at(n) })), []);
    });

    t.test('mostCited: resources cited by most questions, then by type and id; filtered and limited', async (t) => {
      const log = await make(t);
      await seed(log);
      t.same(await log.mostCited({}, 3), [
        { resource_type: 'item', resource_id: 101, title: 'Stradivari violin', citations: 4 },
        { resource_type: 'item', resource_id: 100, title: 'Map of Lisbon', citations: 2 },
        { resource_type: 'site_page', resource_id: 5, title: 'Visiting the museum', citations: 2 },
      ]);
      t.same(
        (await log.mostCited({ siteId: 2 }, 10)).map((c) => [c.resource_id, c.citations]),
        [
          [100, 1],
          [101, 1],
          [5, 1],
        ],
      );
      t.same(
        (await log.mostCited({ until: at(3) }, 10)).map((c) => [c.resource_id, c.citations]),
        [
          [101, 3],
          [5, 1],
        ],
      );
      t.same(await log.mostCited({ answered: false }, 10), []);
    });

    t.test('mostCited: a resource cited twice by one answer counts one question', async (t) => {
      const log = await make(t);
      await log.record(entry('Violins and violins', at(0), [violin, violin]));
      await log.record(entry('Maps', at(1), [map]));
      t.same(
        (await log.mostCited({}, 10)).map((c) => [c.resource_id, c.citations]),
        [
          [100, 1],
          [101, 1],
        ],
      );
    });

    t.test('mostAskedUnanswered: grouped apart from case, spaces and end punctuation', async (t) => {
      const log = await make(t);
      await seed(log);
      t.same(
        (await log.mostAskedUnanswered({}, 3)).map((u) => [u.question, u.count, u.last_asked_at.toISOString()]),
        [
          ['Do you have dinosaur bones!', 3, at(8).toISOString()],
          ['Where can I park', 2, at(10).toISOString()],
          ['Is there a cafe?', 1, at(11).toISOString()],
        ],
        'the text asked last of each group shown, with its time',
      );
      t.same(
        (await log.mostAskedUnanswered({ siteId: 2 }, 10)).map((u) => [u.question, u.count]),
        [
          ['Where can I park?', 1],
          ['do you have  Dinosaur bones', 1],
        ],
        'ties: the one asked last first',
      );
      t.same(
        (await log.mostAskedUnanswered({ until: at(8) }, 10)).map((u) => [u.question, u.count]),
        [['do you have  Dinosaur bones', 2]],
        'within the range only: the text asked last in it',
      );
      t.same(await log.mostAskedUnanswered({ since: at(12) }, 10), []);
    });

    t.test('deleteAskedBefore: every question before the cutoff goes, with its citations', async (t) => {
      const log = await make(t);
      await seed(log);
      t.equal(await log.deleteAskedBefore(at(4)), 4, 'the four asked before the cutoff');
      t.equal(await log.deleteAskedBefore(at(4)), 0, 'none the second time');
      t.equal(await log.count({}), 8, 'the one asked at the cutoff stays');
      t.same(
        (await log.list({}, 7, 10)).questions.map((q) => q.question),
        ['Old maps of Lisbon harbour'],
      );
      t.same(
        (await log.mostCited({}, 10)).map((c) => [c.resource_id, c.citations]),
        [
          [100, 1],
          [101, 1],
          [5, 1],
        ],
        'their citations went with them',
      );
      t.notOk((await all(log.texts({}))).includes('Who made the violin?'));
      t.equal(await log.deleteAskedBefore(at(60)), 8);
      t.same(await log.list({}, 0, 10), { questions: [], total: 0 });
      t.same(await log.mostCited({}, 10), []);
      t.same(await log.mostAskedUnanswered({}, 10), []);
    });

    t.test('close may be called twice', async (t) => {
      const log = await make(t);
      await log.close();
      await log.close();
      t.pass('closed');
    });
  });
}

questionLogContract('SQLite question log (DATA_DIR/chatbot-questions.sqlite)', async (t) => {
  const log = new SqliteQuestionLog(join(t.testdir(), 'chatbot-questions.sqlite'));
  t.teardown(() => log.close());
  return log;
});

questionLogContract(
  'PostgreSQL question log (QUESTION_LOG_URL)',
  PG_EVENTSTORE_URL
    ? async (t) => {
        // A schema per test, dropped after it: each test starts on empty tables of its own.
        const schema = freshSchema();
        const log = new PostgresQuestionLog(PG_EVENTSTORE_URL, { schema });
        t.teardown(async () => {
          await log.close();
          await dropSchema(PG_EVENTSTORE_URL, schema);
        });
        return log;
      }
    : null,
  PG_EVENTSTORE_URL ? undefined : 'PG_EVENTSTORE_URL unset (a postgres:// URL of a database to test against)',
);
