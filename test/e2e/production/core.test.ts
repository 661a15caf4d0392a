import t from 'tap';
import { importFixtureFile, startServer } from '../process.js';
import { chatbotFixture } from '../../routes/chatbot/support.js';
import { eventually, freshDataDir, postgresEnv, searchBody, skipUnlessStack, stackEnv } from './stack.js';

/**
 * The real server on Kafka, MongoDB, Elasticsearch and Redis (issue 37, item 3): the event log
 * stays the embedded SQLite one in DATA_DIR.
 */
const fixture = {
  ...chatbotFixture,
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
  blog: { settings: { comments_enabled: true }, categories: [], posts: [], comments: [] },
};
const KEY = 'key_identity=ED&key_credential=ED-SECRET';

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

t.test(
  'the app on the production engines: writes, read-your-writes, search, page versions, the chatbot through Elasticsearch, /health',
  { skip: skipUnlessStack() },
  async (t) => {
    const dataDir = freshDataDir(t.testdir());
    // The log, the files and the questions in PostgreSQL when it answers (a schema of the test's own).
    const env = { ...stackEnv(dataDir), ...postgresEnv(t), CHATBOT_RATE_LIMIT: '100' };
    const imported = await importFixtureFile(dataDir, fixture, 'production-core', env);
    t.equal(imported.code, 0, `import exits 0: ${imported.stderr}`);
    const server = await startServer(env, 120_000);
    t.teardown(() => server.stop('SIGKILL'));
    const call = async (path: string, init: RequestInit = {}): Promise<Answer> => {
      const res = await fetch(`${server.baseUrl}${path}`, {
        ...init,
        headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
    };
    const send = (method: string, path: string, body: object) => call(path, { method, body: JSON.stringify(body) });

    const health = await call('/health');
    t.equal(health.status, 200, '/health answers 200');
    t.match(
      health.body,
      {
        status: 'ok',
        ports: {
          // PostgreSQL when it answers (postgresEnv), else DATA_DIR's SQLite log.
          event_store: { adapter: 'EVENTSTORE_URL' in env ? 'production' : 'embedded', reachable: true },
          file_storage: { adapter: 'FILES_URL' in env ? 'production' : 'embedded', reachable: true },
          event_bus: { adapter: 'production', reachable: true },
          document_store: { adapter: 'production', reachable: true },
          vector_index: { adapter: 'production', reachable: true },
          job_queue: { adapter: 'production', reachable: true },
          session_store: { adapter: 'production', reachable: true },
        },
      },
      'each production adapter is named and reachable',
    );

    // A blog post: read back at once, found by search, counted in Platform-Total-Results.
    const created = await send('POST', `/api/blog_posts?${KEY}`, {
      title: 'Harbour lights',
      content: '<p>The lighthouse keeper.</p>',
      status: 'published',
    });
    t.equal(created.status, 201, `created: ${JSON.stringify(created.body)}`);
    const postId = (created.body as { 'o:id': number })['o:id'];
    const read = await call(`/api/blog_posts/${postId}`);
    t.equal(read.status, 200, 'read back at once (read-your-writes)');
    t.match(read.body, { 'o:title': 'Harbour lights' });
    const found = await call(`/api/blog_posts?search=lighthouse&${KEY}`);
    t.same(
      (found.body as { 'o:id': number }[]).map((p) => p['o:id']),
      [postId],
      'found by search at once',
    );
    t.equal(found.headers.get('platform-total-results'), '1');
    const listed = await call('/api/blog_posts');
    t.equal(listed.headers.get('platform-total-results'), '1', 'listed with its total');

    // A comment approved.
    const comment = await send('POST', '/api/blog_comments', {
      post_id: postId,
      author_name: 'Vi',
      author_email: 'vi@example.org',
      body: 'Lovely',
    });
    t.equal(comment.status, 201, `comment: ${JSON.stringify(comment.body)}`);
    const commentId = (comment.body as { 'o:id': number })['o:id'];
    t.equal((await call(`/api/blog_comments/${commentId}`)).status, 404, 'pending: hidden');
    t.equal((await send('PATCH', `/api/blog_comments/${commentId}?${KEY}`, { status: 'approved' })).status, 200);
    t.match(
      (await call(`/api/blog_comments/${commentId}`)).body,
      { 'o:status': 'approved' },
      'approved: public at once',
    );

    // A page updated and reverted, with its versions (read back from the event store; the page from MongoDB).
    const login = await send('POST', '/login', { email: 'editor@example.org', password: 'editor-pass' });
    t.equal(login.status, 204, 'an editor logs in (the session in Redis)');
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
    const versions = async () => {
      const res = await call('/api/page-versioning/5/versions', { headers: { cookie } });
      t.equal(res.status, 200, `versions: ${JSON.stringify(res.body)}`);
      return (res.body as { data: { versions: { id: number; operation: string; title: string }[] } }).data.versions;
    };
    t.equal(
      (
        await call('/api/site_pages/5', {
          method: 'PATCH',
          headers: { cookie },
          body: JSON.stringify({ 'o:title': 'Opening hours' }),
        })
      ).status,
      200,
    );
    t.match((await call('/api/site_pages/5')).body, { 'o:title': 'Opening hours' }, 'the update read back at once');
    const [update, origin] = await versions();
    t.same(
      [update.operation, update.title, origin.operation, origin.title],
      ['update', 'Opening hours', 'create', 'Visiting the museum'],
    );
    const reverted = await call(`/api/page-versioning/version/${origin.id}/revert`, {
      method: 'POST',
      headers: { cookie },
    });
    t.equal(reverted.status, 200, `revert: ${JSON.stringify(reverted.body)}`);
    const revertId = (reverted.body as { data: { new_version_id: number } }).data.new_version_id;
    t.same(
      (await versions()).map((v) => [v.id, v.operation, v.title]),
      [
        [revertId, 'revert', 'Visiting the museum'],
        [update.id, 'update', 'Opening hours'],
        [origin.id, 'create', 'Visiting the museum'],
      ],
      'three versions, the revert first',
    );
    t.match(
      (await call('/api/site_pages/5')).body,
      { 'o:title': 'Visiting the museum' },
      'the revert read back at once',
    );

    // An item and its media, found by the chatbot's search (the kNN in Elasticsearch) and cited by its chat.
    const item = await send('POST', `/api/items?${KEY}`, {
      'o:title': 'Astrolabe',
      'o:description': 'A brass astrolabe from Toledo for reading the stars.',
      'o:site': [{ 'o:id': 1 }],
    });
    t.equal(item.status, 201, `item: ${JSON.stringify(item.body)}`);
    const itemId = (item.body as { 'o:id': number })['o:id'];
    const media = await send('POST', `/api/media?${KEY}`, {
      'o:item': { 'o:id': itemId },
      'o:title': 'Astrolabe rete',
      'o:text': 'The rete of the astrolabe, engraved with star pointers.',
    });
    t.equal(media.status, 201, `media: ${JSON.stringify(media.body)}`);
    const mediaId = (media.body as { 'o:id': number })['o:id'];
    const search = async (query: string) => searchBody(await send('POST', '/chatbot/api/search', { query }));
    const astrolabe = await eventually(
      () => search('brass astrolabe Toledo'),
      (b) => b.results.some((r) => r.url === `/item/${itemId}`),
    );
    const urls = astrolabe.results.map((r) => r.url);
    t.equal(urls[0], `/item/${itemId}`, `the new item first (${urls.join(' ')}${astrolabe.refused ?? ''})`);
    const mediaUrls = (
      await eventually(
        () => search('rete star pointers'),
        (b) => b.results.some((r) => r.url === `/media/${mediaId}`),
      )
    ).results.map((r) => r.url);
    t.ok(mediaUrls.includes(`/media/${mediaId}`), `its media found (${mediaUrls.join(' ')})`);
    const imported6 = await eventually(
      () => search('Stradivari violin'),
      (b) => b.results.some((r) => r.url === '/item/101'),
    );
    t.equal(imported6.results[0]?.url, '/item/101', 'the imported collection is in the index');
    t.notOk(
      imported6.results.some((r) => r.url === '/item/103'),
      'nothing private',
    );
    // ELASTICSEARCH_INDEX: this deployment's chunks in its own index, none in another's.
    const count = await fetch(`${env.ELASTICSEARCH_URL}/${env.ELASTICSEARCH_INDEX}/_count`);
    t.equal(count.status, 200, `the chunks are in ${env.ELASTICSEARCH_INDEX}`);
    t.ok(((await count.json()) as { count: number }).count > 0);

    const chat = await fetch(`${server.baseUrl}/chatbot/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'question=Where+is+the+brass+astrolabe+from%3F&site_slug=main',
    });
    t.equal(chat.status, 200);
    const answer = (await chat.json()) as { answer_html: string; sources: { url: string }[] };
    t.ok(
      answer.sources.some((s) => s.url === `/s/main/item/${itemId}`),
      `the chat cites the item (${answer.sources.map((s) => s.url).join(' ')})`,
    );
    t.match(answer.answer_html, /Toledo/);
  },
);
