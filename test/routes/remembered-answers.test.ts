import type { FastifyReply } from 'fastify';
import t from 'tap';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { RememberedAnswers } from '../../routes/remembered-answers.js';

/** A store that is only a change mark, moved by the test. */
function markedStore(): { store: DocumentStore; move(): void } {
  let mark = 0;
  const store = { changeMark: () => mark } as unknown as DocumentStore;
  return { store, move: () => mark++ };
}

/** The part of a reply the answers use: its headers. */
function fakeReply(): FastifyReply & { headers: Map<string, string> } {
  const headers = new Map<string, string>();
  const reply = {
    headers,
    header(name: string, value: string) {
      headers.set(name.toLowerCase(), value);
      return reply;
    },
    getHeader: (name: string) => headers.get(name.toLowerCase()),
  };
  return reply as unknown as FastifyReply & { headers: Map<string, string> };
}

t.test('an answer is built once while the mark stays, with its headers, and again once it moves', async (t) => {
  const { store, move } = markedStore();
  const answers = new RememberedAnswers(store, ['Platform-Total-Results', 'Link']);
  let builds = 0;
  const build = (reply: FastifyReply) => async () => {
    builds++;
    reply.header('Platform-Total-Results', String(builds));
    return Buffer.from(`[${builds}]`);
  };
  const ask = async (key: string) => {
    const reply = fakeReply();
    const body = await answers.body(key, reply, build(reply));
    return {
      body: body.toString(),
      total: reply.headers.get('platform-total-results'),
      link: reply.headers.get('link'),
    };
  };
  t.same(await ask('a'), { body: '[1]', total: '1', link: undefined });
  t.same(await ask('a'), { body: '[1]', total: '1', link: undefined }, 'kept, with its header; no Link header made up');
  t.same(await ask('b'), { body: '[2]', total: '2', link: undefined }, 'another key is built');
  move();
  t.same(await ask('a'), { body: '[3]', total: '3', link: undefined }, 'the mark moved: built again');
  t.equal(builds, 3);
});

t.test('an answer built while the mark moved is not kept', async (t) => {
  const { store, move } = markedStore();
  const answers = new RememberedAnswers(store, []);
  let builds = 0;
  const racing = async () => {
    builds++;
    move();
    return Buffer.from('stale?');
  };
  await answers.body('a', fakeReply(), racing);
  await answers.body('a', fakeReply(), racing);
  t.equal(builds, 2, 'each answer saw a write during its build, so neither was kept');
});

t.test('a store without a change mark keeps nothing', async (t) => {
  const answers = new RememberedAnswers({} as DocumentStore, []);
  let builds = 0;
  const build = async () => Buffer.from(String(++builds));
  await answers.body('a', fakeReply(), build);
  await answers.body('a', fakeReply(), build);
  t.equal(builds, 2);
});

t.test('past 4 MB of bodies the answers start again from none', async (t) => {
  const { store } = markedStore();
  const answers = new RememberedAnswers(store, []);
  const built: string[] = [];
  const big = (key: string) => async () => {
    built.push(key);
    return Buffer.alloc(1024 * 1024);
  };
  for (const key of ['1', '2', '3', '4', '5', '1']) await answers.body(key, fakeReply(), big(key));
  t.same(built, ['1', '2', '3', '4', '5', '1'], 'the fifth megabyte forgot the first four');
  await answers.body('5', fakeReply(), big('5'));
  t.same(built.length, 6, 'the fifth is kept');
});
