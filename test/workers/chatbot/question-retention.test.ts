import t from 'tap';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { FixedClock } from '../../../infra/clock/port.js';
import { questionLogFile, SqliteQuestionLog } from '../../../infra/question-log/sqlite.js';
import { appModules } from '../../../app/modules.js';
import { chatbotModule } from '../../../app/modules/chatbot.js';
import { createRuntime } from '../../../app/runtime.js';
import { testConfig } from '../../test-config.js';
import { PatronQuestions } from '../../../queries/chatbot/questions.js';
import { startQuestionRetention } from '../../../workers/chatbot/question-retention.js';

const DAY = 24 * 60 * 60 * 1000;

t.test('the retention sweeps while running: questions go once their days pass, with no restart', async (t) => {
  const log = new SqliteQuestionLog(join(t.testdir(), 'q.sqlite'));
  t.teardown(() => log.close());
  const clock = new FixedClock(new Date('2026-03-01T00:00:00Z'));
  const questions = new PatronQuestions({
    log,
    clock,
    retentionDays: 30,
    logger: { warn: () => undefined, info: () => undefined },
  });
  await questions.recorded({ question: 'first' }, { sources: [] });
  const logged: string[] = [];
  const logger = { info: (_d: object, m: string) => logged.push(m), error: (_d: object, m: string) => logged.push(m) };
  const retention = await startQuestionRetention(questions, logger, 20);
  t.teardown(() => retention.stop());
  t.equal(await log.count({}), 1, 'kept within its days');

  clock.advance(31 * DAY);
  // The timer runs every 20 ms; a loaded machine may delay it, hence a bounded wait.
  for (let waited = 0; (await log.count({})) > 0 && waited < 10_000; waited += 20) await sleep(20);
  t.equal(await log.count({}), 0, 'deleted by the running sweep');
  t.same(logged, ['chatbot questions past their retention deleted']);
});

t.test('a failing sweep is logged and the timer goes on', async (t) => {
  const log = new SqliteQuestionLog(join(t.testdir(), 'q.sqlite'));
  await log.close();
  const questions = new PatronQuestions({
    log,
    clock: new FixedClock(new Date()),
    retentionDays: 30,
    logger: { warn: () => undefined, info: () => undefined },
  });
  const errors: string[] = [];
  const retention = await startQuestionRetention(
    questions,
    { info: () => undefined, error: (_d, m) => errors.push(m) },
    20,
  );
  t.teardown(() => retention.stop());
  for (let waited = 0; errors.length < 2 && waited < 10_000; waited += 20) await sleep(20);
  t.ok(errors.length >= 2, 'the first sweep and a later one both reported');
  t.equal(errors[0], 'the chatbot question retention sweep failed');
});

t.test(
  'a runtime that runs no workers (the backup CLI) still drops the expired questions when it starts',
  async (t) => {
    const config = testConfig(t.testdir(), { chatbotSentenceModel: false, chatbotQuestionRetentionDays: 30 });
    const clock = new FixedClock(new Date('2026-03-01T00:00:00Z'));
    const first = await createRuntime(config, { modules: appModules, clock, startWorkers: false });
    await first.module(chatbotModule).services.questions.recorded({ question: 'old' }, { sources: [] });
    clock.advance(29 * DAY);
    await first.module(chatbotModule).services.questions.recorded({ question: 'recent' }, { sources: [] });
    await first.close();

    clock.advance(2 * DAY);
    const second = await createRuntime(config, { modules: appModules, clock, startWorkers: false });
    t.teardown(() => second.close());
    const log = new SqliteQuestionLog(questionLogFile(config));
    t.teardown(() => log.close());
    t.same(
      (await log.list({}, 0, 10)).questions.map((q) => q.question),
      ['recent'],
      'the expired one is gone from the file',
    );
  },
);
