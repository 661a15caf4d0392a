import pino, { type DestinationStream, type Logger } from 'pino';
import type { FastifyRequest } from 'fastify';

/** Query parameters that carry a secret: an API key's credential, a directory token. */
const SECRET_PARAMETERS = new Set(['key_credential', 'token']);

/** The URL with the values of secret query parameters replaced, so a log never holds a credential. */
export function redactedUrl(url: string): string {
  const question = url.indexOf('?');
  if (question < 0) return url;
  const query = new URLSearchParams(url.slice(question + 1));
  let redacted = false;
  for (const name of SECRET_PARAMETERS) {
    if (!query.has(name)) continue;
    query.set(name, '[redacted]');
    redacted = true;
  }
  return redacted ? `${url.slice(0, question)}?${query.toString()}` : url;
}

/**
 * How a request is written to the log (Fastify's own fields), with secrets in the query string
 * redacted. Pino serializers on the root logger take precedence over Fastify's defaults.
 */
export const logSerializers = {
  req(request: FastifyRequest) {
    return {
      method: request.method,
      url: redactedUrl(request.url),
      host: request.host,
      remoteAddress: request.ip,
      remotePort: request.socket?.remotePort,
    };
  },
};

/** The process's logger: pino at `level`, to stdout unless a destination is given, with the serializers above. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, serializers: logSerializers }, destination);
}
