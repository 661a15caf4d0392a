import { Type } from '@sinclair/typebox';
import type { RoutesPlugin } from './http/routes-plugin.js';
import { sha256, verifySecret } from '../infra/crypto/secret-hash.js';
import { RateLimitedError, UnauthorizedError } from '../infra/errors.js';
import { createFailedLogins } from '../infra/failed-logins/select.js';
import { findUserByEmail } from '../queries/users.js';
import { SESSION_COOKIE } from '../infra/session-store/cookie.js';
import { ERROR_BODIES } from './http/error-format.js';

const LoginBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

/** POST /login (JSON or form) sets an HttpOnly, SameSite=Lax session cookie; POST /logout ends it. */
export const authRoutes: RoutesPlugin = async (app, { runtime }) => {
  const { loginMaxFailures, loginFailureWindowSeconds } = runtime.config;
  const failedLogins = await createFailedLogins(runtime.config, runtime.clock, runtime.infra.requestRedis);
  app.addHook('onClose', () => failedLogins.close());
  // An email without an account (or without a password) is checked against this hash, so such a
  // login costs one scrypt like any other and its answer's time does not tell which emails exist.
  // Made now, in the background: the first such login must not pay for making it as well.
  const standInHash = runtime.commandContext(null).hashSecret('no account has this password');
  const passwordHashOf = (stored: string | null | undefined): Promise<string> =>
    stored ? Promise.resolve(stored) : standInHash;
  app.post(
    '/login',
    {
      schema: {
        tags: ['auth'],
        summary: 'Start a login session',
        description: `Answers 204 with an HttpOnly, SameSite=Lax session cookie, or 401 for a wrong email or password. After ${loginMaxFailures} failed logins for one email from one address within ${loginFailureWindowSeconds} seconds (LOGIN_MAX_FAILURES, LOGIN_FAILURE_WINDOW_SECONDS), further tries get 429 with Retry-After until that window ends; a successful login clears the count.`,
        consumes: ['application/json', 'application/x-www-form-urlencoded'],
        body: LoginBody,
        response: { 204: Type.Null({ description: 'Logged in: Set-Cookie holds the session cookie.' }) },
      },
      config: {
        documentedResponses: { 401: { ...ERROR_BODIES.native, description: 'The email or password is wrong.' } },
      },
    },
    async (request, reply) => {
      const { email, password } = request.body;
      // Per address and email: one caller cannot keep guessing, and nobody else can lock the account.
      const throttle = sha256(`${request.ip}\u0000${email.trim().toLowerCase()}`);
      const { failures, retryAfterSeconds } =
        loginMaxFailures > 0 ? await failedLogins.count(throttle) : { failures: 0, retryAfterSeconds: 0 };
      if (loginMaxFailures > 0 && failures >= loginMaxFailures) {
        throw new RateLimitedError('Too many failed logins for this email. Try again later.', retryAfterSeconds);
      }
      const user = await findUserByEmail(runtime.documents, email);
      const matches = await verifySecret(password, await passwordHashOf(user?.passwordHash));
      if (!user?.passwordHash || !matches) {
        if (loginMaxFailures > 0) await failedLogins.record(throttle);
        throw new UnauthorizedError('Invalid email or password.');
      }
      if (failures > 0) await failedLogins.clear(throttle);
      const token = await app.sessions.create(user.id);
      reply.setCookie(SESSION_COOKIE, token, {
        httpOnly: true,
        sameSite: 'lax',
        path: '/',
        secure: runtime.config.baseUrl.startsWith('https://'),
      });
      return reply.status(204).send();
    },
  );

  app.post(
    '/logout',
    { schema: { tags: ['auth'], summary: 'End the login session', response: { 204: Type.Null() } } },
    async (request, reply) => {
      const token = request.cookies[SESSION_COOKIE];
      // Never refused: a removal the store cannot take now (a full disk, Redis away) is refused
      // here at once and retried (infra/session-store/revocations.ts).
      if (token) await app.sessions.destroy(token);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return reply.status(204).send();
    },
  );
};
