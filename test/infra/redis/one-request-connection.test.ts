import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import t from 'tap';
import { buildApp } from '../../../app/app.js';
import { testConfig } from '../../test-config.js';
import { importFixture } from '../../../app/import-fixture.js';
import { appModules } from '../../../app/modules.js';
import { createRuntime } from '../../../app/runtime.js';
import { deploymentName } from '../../../infra/deployment-name.js';
import { ROLE_USERS } from '../../helper.js';
import { directoryFixture } from '../../routes/directory/fixture.js';

const redisUrl = process.env.REDIS_URL;

/** The runtime's connections in Redis's CLIENT LIST, found by the name it gives them. */
async function connectionsNamed(admin: Redis, name: string): Promise<number> {
  const list = (await admin.client('LIST')) as string;
  return list.split('\n').filter((line) => line.includes(` name=${name} `)).length;
}

t.test(
  'sessions, failed logins and both rate limits share one Redis connection, closed with the runtime',
  { skip: redisUrl ? false : 'REDIS_URL is not set' },
  async (t) => {
    const dataDir = t.testdir();
    const config = testConfig(dataDir, { baseUrl: 'http://test.local', redisUrl });
    const runtime = await createRuntime(config, { modules: appModules });
    // A fresh token per run: counts in Redis outlive the test for up to a minute.
    const token = `one-connection-${randomUUID()}`;
    await importFixture(runtime, {
      users: ROLE_USERS.slice(0, 1),
      directory: directoryFixture({ tokens: [{ token, allowed_origins: [] }] }),
    });
    const app = await buildApp(runtime);
    const admin = new Redis(redisUrl as string);
    t.teardown(() => admin.disconnect());
    const name = `${deploymentName(config)}:requests`;
    const user = ROLE_USERS[0] as (typeof ROLE_USERS)[number];

    const wrong = await app.inject({
      method: 'POST',
      url: '/login',
      payload: { email: user.email, password: 'not the password' },
    });
    t.equal(wrong.statusCode, 401, 'a failed login is counted');
    const login = await app.inject({
      method: 'POST',
      url: '/login',
      payload: { email: user.email, password: user.password },
    });
    t.equal(login.statusCode, 204, 'a session is stored');
    const cookie = login.cookies.find((c) => c.name === 'sid');
    const session = await app.inject({
      method: 'GET',
      url: '/api/backups',
      headers: { cookie: `sid=${cookie?.value}` },
    });
    t.equal(session.statusCode, 200, 'the session is read back');
    const chat = await app.inject({ method: 'POST', url: '/chatbot/api/search', payload: { query: 'maps' } });
    t.equal(chat.statusCode, 200, 'the chatbot limit is counted');
    const directory = await app.inject({ method: 'GET', url: `/api/v1/types?token=${token}` });
    t.equal(directory.statusCode, 200);
    t.equal(directory.headers['x-ratelimit-remaining'], '119', 'the directory limit is counted in Redis');

    t.equal(await connectionsNamed(admin, name), 1, 'one connection for all of them');
    t.equal(runtime.infra.requestRedis?.status, 'ready');

    const connection = runtime.infra.requestRedis as Redis;
    const ended = once(connection, 'end');
    await app.close();
    await runtime.close();
    await ended;
    t.pass('closed with the runtime');
    // Redis may list a connection a moment after the client has seen it end.
    let left = await connectionsNamed(admin, name);
    for (let tries = 0; left > 0 && tries < 20; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      left = await connectionsNamed(admin, name);
    }
    t.equal(left, 0, 'and gone from Redis');
  },
);
