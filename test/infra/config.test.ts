import t from 'tap';
import { embeddedConfig, loadConfig, oaiRepositoryIdentifier } from '../../infra/config.js';

t.test('CHATBOT_ALLOWED_ORIGINS', async (t) => {
  t.same(loadConfig({}).chatbotAllowedOrigins, [], 'unset: any origin');
  t.same(loadConfig({ CHATBOT_ALLOWED_ORIGINS: ' ' }).chatbotAllowedOrigins, []);
  t.same(
    loadConfig({
      CHATBOT_ALLOWED_ORIGINS: 'https://Museum.example.org/, http://localhost:3000,https://museum.example.org',
    }).chatbotAllowedOrigins,
    ['https://museum.example.org', 'http://localhost:3000'],
    'comma-separated, normalised, each once',
  );
  t.throws(
    () => loadConfig({ CHATBOT_ALLOWED_ORIGINS: 'museum.example.org' }),
    /CHATBOT_ALLOWED_ORIGINS must list origins .* got "museum.example.org"/,
  );
  t.throws(
    () => loadConfig({ CHATBOT_ALLOWED_ORIGINS: 'https://museum.example.org/chat' }),
    /got "https:\/\/museum.example.org\/chat"/,
    'a path is not an origin',
  );
});

t.test('COHERE_API_KEY and COHERE_BASE_URL', async (t) => {
  t.equal(loadConfig({}).cohere, undefined, 'neither: the embedded embedder and answerer');
  t.same(loadConfig({ COHERE_API_KEY: 'k' }).cohere, { apiKey: 'k', baseUrl: undefined }, "Cohere's own endpoint");
  t.same(loadConfig({ COHERE_API_KEY: 'k', COHERE_BASE_URL: 'https://llm.example.edu/cohere' }).cohere, {
    apiKey: 'k',
    baseUrl: 'https://llm.example.edu/cohere',
  });
  t.throws(
    () => loadConfig({ COHERE_BASE_URL: 'https://llm.example.edu' }),
    /COHERE_BASE_URL is set without COHERE_API_KEY/,
  );
  for (const bad of ['llm.example.edu', 'ftp://llm.example.edu'])
    t.throws(
      () => loadConfig({ COHERE_API_KEY: 'k', COHERE_BASE_URL: bad }),
      { message: `COHERE_BASE_URL must be an http or https URL, got "${bad}".` },
      bad,
    );
});

t.test('CHATBOT_SENTENCE_MODEL', async (t) => {
  t.equal(loadConfig({}).chatbotSentenceModel, true, 'on by default');
  t.equal(loadConfig({ CHATBOT_SENTENCE_MODEL: 'OFF' }).chatbotSentenceModel, false);
  t.equal(loadConfig({ CHATBOT_SENTENCE_MODEL: 'on' }).chatbotSentenceModel, true);
  t.throws(() => loadConfig({ CHATBOT_SENTENCE_MODEL: 'no' }), /CHATBOT_SENTENCE_MODEL must be on or off, got "no"/);
});

t.test('EVENT_LOG_COMMITS', async (t) => {
  t.equal(loadConfig({}).eventLogCommits, 'inline', 'inline by default');
  t.equal(loadConfig({ EVENT_LOG_COMMITS: 'Thread' }).eventLogCommits, 'thread');
  t.throws(
    () => loadConfig({ EVENT_LOG_COMMITS: 'worker' }),
    /EVENT_LOG_COMMITS must be one of inline, thread, got "worker"/,
  );
});

t.test('SECRET_HASH_COST', async (t) => {
  t.equal(loadConfig({}).secretHashCost, 16384, "scrypt's 2^14 by default");
  t.equal(embeddedConfig('/tmp/data').secretHashCost, 16384, 'and on embedded defaults');
  t.equal(loadConfig({ SECRET_HASH_COST: '131072' }).secretHashCost, 131072);
  t.equal(loadConfig({ SECRET_HASH_COST: '1024' }).secretHashCost, 1024);
  for (const bad of ['1000', '512', '262144', '-1024', 'high', '16384.5']) {
    t.throws(() => loadConfig({ SECRET_HASH_COST: bad }), /SECRET_HASH_COST must be/, bad);
  }
});

t.test('BACKUP_SCHEDULE and BACKUP_SCHEDULE_TZ', async (t) => {
  t.equal(loadConfig({}).backupSchedule, null, 'unset: no scheduled backups');
  t.same(
    loadConfig({ BACKUP_SCHEDULE: ' 0  3 * * * ' }).backupSchedule,
    { expression: '0 3 * * *', timezone: 'UTC' },
    'UTC by default',
  );
  t.same(loadConfig({ BACKUP_SCHEDULE: '30 2 * * 1', BACKUP_SCHEDULE_TZ: 'Europe/Lisbon' }).backupSchedule, {
    expression: '30 2 * * 1',
    timezone: 'Europe/Lisbon',
  });
  t.same(
    loadConfig({ BACKUP_SCHEDULE: '*/15 * * * *' }).backupSchedule,
    { expression: '*/15 * * * *', timezone: 'UTC' },
    'every 15 minutes is the most often',
  );
  const refusals: [Record<string, string>, RegExp][] = [
    [
      { BACKUP_SCHEDULE: 'nightly' },
      /^BACKUP_SCHEDULE must be a cron expression such as "0 3 \* \* \*" .*got "nightly" \(1 field, not 5\)\.$/,
    ],
    [
      { BACKUP_SCHEDULE: '0 3 * *' },
      /^BACKUP_SCHEDULE must be a cron expression .*got "0 3 \* \*" \(4 fields, not 5\)\.$/,
    ],
    [{ BACKUP_SCHEDULE: '61 3 * * *' }, /^BACKUP_SCHEDULE must be a cron expression .*got "61 3 \* \* \*": .*61.*\.$/],
    [
      { BACKUP_SCHEDULE: '*/5 * * * *' },
      /^BACKUP_SCHEDULE must not run more often than every 15 minutes, got "\*\/5 \* \* \* \*" \(runs 5 minutes apart\)\.$/,
    ],
    [{ BACKUP_SCHEDULE: '0,10 3 * * *' }, /runs 10 minutes apart/],
    // 23:55 and then 00:00 the next day.
    [{ BACKUP_SCHEDULE: '0,55 0,23 * * *' }, /runs 5 minutes apart/],
    [{ BACKUP_SCHEDULE: '*/30 * * * * *' }, /^BACKUP_SCHEDULE must not run more often .*\(runs 30 seconds apart\)\.$/],
    [
      { BACKUP_SCHEDULE: '0 3 * * *', BACKUP_SCHEDULE_TZ: 'Mars/Olympus' },
      /^BACKUP_SCHEDULE_TZ must be an IANA time zone such as UTC or Europe\/Lisbon, got "Mars\/Olympus"\.$/,
    ],
  ];
  for (const [env, message] of refusals) t.throws(() => loadConfig(env), { message }, JSON.stringify(env));
});

t.test('ELASTICSEARCH_INDEX', async (t) => {
  t.equal(loadConfig({}).elasticsearchIndex, 'chatbot-chunks', 'unset: the name the index always had');
  t.equal(loadConfig({ ELASTICSEARCH_INDEX: ' museum-a.chunks_2 ' }).elasticsearchIndex, 'museum-a.chunks_2');
  for (const name of ['Chunks', '-chunks', 'a b', 'a*b', 'x'.repeat(256)]) {
    t.throws(
      () => loadConfig({ ELASTICSEARCH_INDEX: name }),
      { message: /^ELASTICSEARCH_INDEX must be lowercase letters/ },
      name.slice(0, 10),
    );
  }
});

t.test('OAI_REPOSITORY_IDENTIFIER and its default from BASE_URL', async (t) => {
  const identifier = (env: NodeJS.ProcessEnv) => oaiRepositoryIdentifier(loadConfig(env));
  t.equal(identifier({ OAI_REPOSITORY_IDENTIFIER: 'oai.museum.example' }), 'oai.museum.example');
  t.equal(identifier({ BASE_URL: 'https://collections.museum.example/' }), 'collections.museum.example');
  t.equal(identifier({ BASE_URL: 'http://127.0.0.1:8080' }), 'localhost.localdomain', 'an address is no domain name');
  t.equal(identifier({ BASE_URL: 'http://localhost:8080' }), 'localhost.localdomain', 'a name without a dot');
  for (const bad of ['museum', 'a b.org', 'oai:museum.org', '-museum.org'])
    t.throws(
      () => loadConfig({ OAI_REPOSITORY_IDENTIFIER: bad }),
      { message: /^OAI_REPOSITORY_IDENTIFIER must be a domain name such as collections\.example\.org/ },
      bad,
    );
});

t.test('FILES_URL', async (t) => {
  t.equal(loadConfig({}).filesUrl, undefined, 'unset: DATA_DIR/files');
  t.equal(loadConfig({ FILES_URL: ' ' }).filesUrl, undefined);
  for (const url of ['postgres://u:p@db:5432/files', 'postgresql://db/files', 'POSTGRES://db/files'])
    t.equal(loadConfig({ FILES_URL: url }).filesUrl, url, url);
  for (const url of ['mongodb://u:secret@db/files', 'db:5432', 'file:///srv/files']) {
    t.throws(
      () => loadConfig({ FILES_URL: url }),
      { message: 'FILES_URL must be a PostgreSQL URL (postgres://... or postgresql://...).' },
      `${url}: refused, its value (maybe a password) not repeated`,
    );
  }
});

t.test('QUESTION_LOG_URL', async (t) => {
  t.equal(loadConfig({}).questionLogUrl, undefined, 'unset: DATA_DIR/chatbot-questions.sqlite');
  t.equal(loadConfig({ QUESTION_LOG_URL: ' ' }).questionLogUrl, undefined);
  for (const url of ['postgres://u:p@db:5432/questions', 'postgresql://db/questions'])
    t.equal(loadConfig({ QUESTION_LOG_URL: url }).questionLogUrl, url, url);
  t.throws(
    () => loadConfig({ QUESTION_LOG_URL: 'mongodb://u:secret@db/questions' }),
    { message: 'QUESTION_LOG_URL must be a PostgreSQL URL (postgres://... or postgresql://...).' },
    'refused, its value (maybe a password) not repeated',
  );
});
