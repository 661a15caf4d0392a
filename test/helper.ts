import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../app/app.js';
import type { AppConfig } from '../infra/config.js';
import { importFixture } from '../app/import-fixture.js';
import { appModules } from '../app/modules.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../app/runtime.js';
import { testConfig } from './test-config.js';

/** The subset of a tap Test these helpers use, so they work with any tap version. */
export interface TestContext {
  testdir(): string;
  teardown(fn: () => unknown): void;
}

export interface TestApp {
  app: FastifyInstance;
  runtime: Runtime;
  config: AppConfig;
}

/** Builds the app on embedded defaults in a fresh directory, imports the fixture, closes on teardown. */
export async function buildTestApp(
  t: TestContext,
  options: { fixture?: object; config?: Partial<AppConfig> } & Partial<RuntimeOptions> = {},
): Promise<TestApp> {
  const config = testConfig(t.testdir(), { baseUrl: 'http://test.local', ...options.config });
  const runtime = await createRuntime(config, { modules: appModules, ...options });
  // Registered at once: a fixture that fails to import still closes the runtime.
  let app: FastifyInstance | null = null;
  t.teardown(async () => {
    await app?.close();
    await runtime.close();
  });
  if (options.fixture) await importFixture(runtime, options.fixture);
  app = await buildApp(runtime);
  return { app, runtime, config };
}

/** A fixture with one user of every role, each with an API key `<role>-id` / `<role>-secret`. */
export const ROLE_USERS = [
  { id: 1, email: 'global@example.org', name: 'Gail Global', role: 'global_admin' },
  { id: 2, email: 'site@example.org', name: 'Sid Supervisor', role: 'site_admin' },
  { id: 3, email: 'editor@example.org', name: 'Ed Editor', role: 'editor' },
  { id: 4, email: 'reviewer@example.org', name: 'Rae Reviewer', role: 'reviewer' },
  { id: 5, email: 'author@example.org', name: 'Aud Author', role: 'author' },
  { id: 6, email: 'researcher@example.org', name: 'Res Researcher', role: 'researcher' },
].map((u) => ({
  ...u,
  password: `${u.role}-pass`,
  api_keys: [{ identity: `${u.role}-id`, credential: `${u.role}-secret`, label: 'test' }],
}));

export type RoleName = 'global_admin' | 'site_admin' | 'editor' | 'reviewer' | 'author' | 'researcher';

/** Query string authenticating as the role's API key. */
export function keyFor(role: RoleName): string {
  return `key_identity=${role}-id&key_credential=${role}-secret`;
}

/** Logs in as the role and returns the Cookie header value. */
export async function sessionFor(app: FastifyInstance, role: RoleName): Promise<string> {
  const user = ROLE_USERS.find((u) => u.role === role);
  if (!user) throw new Error(`no user for ${role}`);
  const res = await app.inject({
    method: 'POST',
    url: '/login',
    payload: { email: user.email, password: user.password },
  });
  if (res.statusCode !== 204) throw new Error(`login failed for ${role}: ${res.statusCode} ${res.body}`);
  const cookie = res.cookies.find((c) => c.name === 'sid');
  if (!cookie) throw new Error('no session cookie');
  return `sid=${cookie.value}`;
}

export function json<T = unknown>(res: LightMyRequestResponse): T {
  return JSON.parse(res.body) as T;
}
