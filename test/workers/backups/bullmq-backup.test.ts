import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import t from 'tap';
import type { JobQueue } from '../../../infra/job-queue/port.js';
import { buildTestApp, json, keyFor, ROLE_USERS } from '../../helper.js';

const REDIS_URL = process.env.REDIS_URL;
const ADAPTER = new URL('../../../infra/job-queue/bullmq.ts', import.meta.url);

const skip = !REDIS_URL
  ? 'REDIS_URL is not set: the BullMQ backup test needs a Redis (e.g. REDIS_URL=redis://127.0.0.1:6379)'
  : !existsSync(ADAPTER)
    ? 'infra/job-queue/bullmq.ts does not exist yet'
    : false;

t.test('a backup through the BullMQ job queue', { skip }, async (t) => {
  const { BullMqJobQueue } = (await import(ADAPTER.href)) as typeof import('../../../infra/job-queue/bullmq.js');
  const prefix = `backup-test-${randomUUID()}`;
  const jobs: JobQueue = await BullMqJobQueue.connect({ url: REDIS_URL as string, prefix });
  const { app } = await buildTestApp(t, { fixture: { users: ROLE_USERS.slice(0, 1) }, infrastructure: { jobs } });
  const { Redis } = await import('ioredis');
  const redis = new Redis(REDIS_URL as string);
  t.teardown(async () => {
    await jobs.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  const res = await app.inject({
    method: 'POST',
    url: `/api/backups?${keyFor('global_admin')}`,
    payload: { include_api: false },
  });
  t.equal(res.statusCode, 201);
  const record = json<{ 'o:id': number; 'o:path': string; 'o:status': string; 'o:size': number; 'o:checksum': string }>(
    res,
  );
  t.equal(record['o:status'], 'complete');
  const bytes = readFileSync(record['o:path']);
  t.equal(record['o:size'], bytes.length);
  t.equal(record['o:checksum'], `sha256:${createHash('sha256').update(bytes).digest('hex')}`);
  t.equal(await redis.exists(`${prefix}:backups:backup-${record['o:id']}`), 1, 'the job went through Redis');

  const second = await app.inject({
    method: 'POST',
    url: `/api/backups?${keyFor('global_admin')}`,
    payload: { include_api: false },
  });
  t.equal(second.statusCode, 201, 'a second backup runs too');
  const list = json<unknown[]>(await app.inject({ method: 'GET', url: `/api/backups?${keyFor('global_admin')}` }));
  t.equal(list.length, 2);
});
