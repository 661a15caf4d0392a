import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../infra/errors.js';
import type { ChatStreamEvent } from '../../queries/chatbot/chat-stream.js';

export const EVENT_STREAM = 'text/event-stream';
const UNEXPECTED_MESSAGE = 'An unexpected error occurred. Please try again.';

/**
 * Whether the client asked for Server-Sent Events: `text/event-stream` among the Accept header's
 * media ranges, not refused with q=0. A wildcard alone keeps the JSON answer, so a client that
 * never heard of the stream gets the seed's response.
 */
export function wantsEventStream(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((range) => {
    const [type, ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== EVENT_STREAM) return false;
    const q = parameters.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

type StreamEvent = ChatStreamEvent | { event: 'error'; data: { error: string } };

/** One event on the wire; its data is JSON, which holds no line break, so one data line. */
export function encodeEvent({ event, data }: StreamEvent): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The error handler's message for an error, as the seed's bodies carry it. */
function errorMessage(error: unknown): string {
  return error instanceof AppError ? error.message : UNEXPECTED_MESSAGE;
}

/**
 * Sends the events as text/event-stream. The first event is awaited before anything is sent, so
 * an error until then (the index, the provider) is the error handler's, with the seed's status
 * and body; after it, an error is an `error` event and the stream ends. The reply's headers set
 * earlier (CORS) go out with it. When the client goes away the signal aborts, which stops the
 * answerer; the controller is the caller's so it can hand the signal to the work first.
 */
export async function sendEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  events: AsyncGenerator<ChatStreamEvent, void>,
  controller: AbortController,
): Promise<FastifyReply> {
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) {
      controller.abort();
      request.log.info('chat stream: the client went away; the answer was stopped');
    }
  });
  const first = await events.next();
  async function* body(): AsyncGenerator<string> {
    try {
      if (first.done) return;
      yield encodeEvent(first.value);
      for (;;) {
        const next = await events.next();
        if (next.done) return;
        yield encodeEvent(next.value);
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      if (!(error instanceof AppError) || error.statusCode >= 500)
        request.log.error({ err: error }, 'chat stream failed after its first event');
      yield encodeEvent({ event: 'error', data: { error: errorMessage(error) } });
    } finally {
      await events.return();
    }
  }
  return (
    reply
      .status(200)
      .header('content-type', `${EVENT_STREAM}; charset=utf-8`)
      // Each event must reach the client as it is written: no cache, no proxy buffering (nginx).
      .header('cache-control', 'no-cache')
      .header('x-accel-buffering', 'no')
      .send(Readable.from(body(), { objectMode: false }))
  );
}
