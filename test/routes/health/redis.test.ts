import t from 'tap';
import { freePort } from '../../../infra/net/free-port.js';
import { buildTestApp } from '../../helper.js';
import { REDIS_SERVER, startRedis } from '../../throwaway-redis.js';

t.test(
  'with REDIS_URL: the job queue and the session store are production ports; Redis away is degraded, not 503',
  { skip: REDIS_SERVER ? false : 'redis-server is not installed' },
  async (t) => {
    const port = await freePort();
    const redis = await startRedis(port);
    t.teardown(() => redis.stop());
    const { app } = await buildTestApp(t, { config: { redisUrl: `redis://127.0.0.1:${port}` } });

    const up = (await app.inject({ method: 'GET', url: '/health' })).json();
    t.same(up.ports.job_queue, { adapter: 'production', reachable: true });
    t.same(up.ports.session_store, { adapter: 'production', reachable: true });
    t.ok(Array.isArray(up.jobs.queues), 'BullMQ tells the backlog');

    await redis.stop();
    const began = Date.now();
    const res = await app.inject({ method: 'GET', url: '/health' });
    t.ok(Date.now() - began < 5_000, `answered in ${Date.now() - began} ms`);
    t.equal(res.statusCode, 200, 'Redis is no core store');
    const down = res.json();
    t.equal(down.status, 'degraded');
    t.same(down.ports.job_queue, { adapter: 'production', reachable: false });
    t.same(down.ports.session_store, { adapter: 'production', reachable: false });
    t.equal(down.jobs.queues, null);
    t.equal(down.ports.event_store.reachable, true);
  },
);
