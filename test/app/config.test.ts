import t from 'tap';
import { embeddedConfig, loadConfig } from '../../app/config.js';

t.test('CHATBOT_ALLOWED_ORIGINS', async (t) => {
  t.same(loadConfig({}).chatbotAllowedOrigins, [], 'unset: any origin');
  t.same(loadConfig({ CHATBOT_ALLOWED_ORIGINS: ' ' }).chatbotAllowedOrigins, []);
  t.same(
    loadConfig({ CHATBOT_ALLOWED_ORIGINS: 'https://Museum.example.org/, http://localhost:3000,https://museum.example.org' }).chatbotAllowedOrigins,
    ['https://museum.example.org', 'http://localhost:3000'],
    'comma-separated, normalised, each once',
  );
  t.throws(() => loadConfig({ CHATBOT_ALLOWED_ORIGINS: 'museum.example.org' }), /CHATBOT_ALLOWED_ORIGINS must list origins .* got "museum.example.org"/);
  t.throws(() => loadConfig({ CHATBOT_ALLOWED_ORIGINS: 'https://museum.example.org/chat' }), /got "https:\/\/museum.example.org\/chat"/, 'a path is not an origin');
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
  t.throws(() => loadConfig({ EVENT_LOG_COMMITS: 'worker' }), /EVENT_LOG_COMMITS must be one of inline, thread, got "worker"/);
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
