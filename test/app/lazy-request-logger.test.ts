import pino from 'pino';
import { Writable } from 'node:stream';
import t from 'tap';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { LazyRequestLogger, lazyChildLoggerFactory } from '../../app/lazy-request-logger.js';

/** A pino logger at `level` whose lines are collected, parsed. */
function capturing(level: string): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n'))
        if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

t.test('the child is made only when something is written at a level the logger writes', async (t) => {
  const { logger, lines } = capturing('warn');
  const lazy = new LazyRequestLogger(logger, { reqId: 'r-1' }, {});
  lazy.info('not written');
  lazy.debug({ detail: 1 }, 'not written either');
  t.notOk(lazy.materialised, 'nothing written: no child');
  t.equal(lazy.level, 'warn', "the level is the parent's");
  lazy.error({ err: new Error('boom') }, 'written');
  t.ok(lazy.materialised);
  await flush();
  t.match(
    lines,
    [{ level: 50, reqId: 'r-1', msg: 'written', err: { message: 'boom' } }],
    'one line, with the request id',
  );
});

t.test('a level set on the request logger applies to it alone', async (t) => {
  const { logger, lines } = capturing('warn');
  const lazy = new LazyRequestLogger(logger, { reqId: 'r-2' }, {});
  lazy.level = 'debug';
  lazy.debug('now written');
  t.equal(logger.level, 'warn', 'the parent keeps its level');
  const grandchild = lazy.child({ part: 'x' });
  grandchild.debug('from a child of it');
  await flush();
  t.match(lines, [
    { level: 20, reqId: 'r-2', msg: 'now written' },
    { level: 20, reqId: 'r-2', part: 'x', msg: 'from a child of it' },
  ]);
});

t.test(
  'through Fastify: request.log carries the request id; a route with its own level gets its child at once',
  async (t) => {
    const { logger, lines } = capturing('info');
    const app = Fastify({
      loggerInstance: logger as FastifyBaseLogger,
      childLoggerFactory: lazyChildLoggerFactory,
      disableRequestLogging: true,
      genReqId: () => 'req-7',
    });
    app.get('/quiet', async (request) => ({ lazy: request.log instanceof LazyRequestLogger }));
    app.get('/loud', async (request) => {
      request.log.info('handled');
      return {};
    });
    app.get('/own-level', { logLevel: 'debug' }, async (request) => {
      request.log.debug('debug here');
      return { lazy: request.log instanceof LazyRequestLogger };
    });
    t.teardown(() => app.close());
    t.same((await app.inject('/quiet')).json(), { lazy: true });
    await app.inject('/loud');
    t.same((await app.inject('/own-level')).json(), { lazy: false });
    await flush();
    t.match(lines, [
      { msg: 'handled', reqId: 'req-7' },
      { msg: 'debug here', reqId: 'req-7', level: 20 },
    ]);
  },
);
