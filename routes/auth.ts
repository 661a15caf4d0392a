import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { verifySecret } from '../infra/crypto/secret-hash.js';
import { UnauthorizedError } from '../infra/errors.js';
import { findUserByEmail } from '../queries/users.js';
import type { Runtime } from '../app/runtime.js';
import { SESSION_COOKIE } from '../app/session-cookie.js';

const LoginBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

/** POST /login (JSON or form) sets an HttpOnly, SameSite=Lax session cookie; POST /logout ends it. */
export async function authRoutes(app: FastifyInstance, runtime: Runtime): Promise<void> {
  app.post(
    '/login',
    {
      schema: {
        tags: ['auth'],
        summary: 'Start a login session',
        body: LoginBody,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const { email, password } = request.body as { email: string; password: string };
      const user = await findUserByEmail(runtime.documents, email);
      if (!user?.passwordHash || !(await verifySecret(password, user.passwordHash))) {
        throw new UnauthorizedError('Invalid email or password.');
      }
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
      // Awaited: a session store that is away answers 503 rather than a logout that did not happen.
      if (token) await app.sessions.destroy(token);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return reply.status(204).send();
    },
  );
}
