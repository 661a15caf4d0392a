import { readFileSync } from 'node:fs';
import t from 'tap';
import { buildTestApp } from '../../helper.js';
import { projectFile } from '../../../infra/project-root.js';

t.test('GET /chat-widget.js serves the chat panel script to any site', async (t) => {
  const { app } = await buildTestApp(t);
  const res = await app.inject({
    method: 'GET',
    url: '/chat-widget.js',
    headers: { origin: 'https://museum.example.org' },
  });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-type'], 'application/javascript; charset=utf-8');
  t.equal(res.headers['cache-control'], 'public, max-age=300');
  t.equal(res.headers['x-content-type-options'], 'nosniff');
  t.equal(res.body, readFileSync(projectFile('widget/chat-widget.js'), 'utf8'));
  t.match(res.body, /data-collection-chat/);

  const docs = JSON.parse((await app.inject({ method: 'GET', url: '/api/docs.json' })).body) as {
    paths: Record<string, Record<string, { tags?: string[] }>>;
  };
  t.same(docs.paths['/chat-widget.js']?.get?.tags, ['widget'], 'in the OpenAPI document');
  t.same(docs.paths['/chatbot/api/chat']?.options?.tags, ['Chatbot'], 'the preflight is documented');
});
