import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the fake answers a streamed chat. */
export type ChatStreamMode =
  /** Every piece of the answer, then stream-end with its citations. */
  | 'whole'
  /** The first piece, then the connection cut: a provider failing mid-answer. */
  | 'cut'
  /** The first piece, then nothing until the client goes away. */
  | 'hold'
  /** HTTP 400 before any byte of the stream. */
  | 'refuse';

export interface FakeCohere {
  url: string;
  /** What the next streamed chats do. */
  mode: ChatStreamMode;
  /** The requests received: path, authorization header, JSON body. */
  requests: { path: string; authorization: string | undefined; body: Record<string, unknown> }[];
  /** Streamed chats whose client went away before the stream ended. */
  abandonedStreams: number;
  close(): Promise<void>;
}

/** The answer the fake writes, piece by piece, and its citation of the first document. */
export const FAKE_ANSWER_PIECES = ['The museum opens ', 'at ten on Saturdays.'];
const FAKE_ANSWER = FAKE_ANSWER_PIECES.join('');
const DIMENSION = 1024;

/**
 * Word-hashed unit vectors: texts that share words are near, as the retrieval tests need; not
 * Cohere's model, only its wire format.
 */
function embedding(text: string): number[] {
  const vector = new Array<number>(DIMENSION).fill(0);
  vector[DIMENSION - 1] = 0.01;
  for (const word of text.toLowerCase().match(/[a-z]{3,}/g) ?? []) {
    let hash = 2166136261;
    for (const char of word) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
    vector[(hash >>> 0) % (DIMENSION - 1)] += 1;
  }
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}

const streamEvent = (event: Record<string, unknown>) => `${JSON.stringify(event)}\n`;

/**
 * A Cohere-compatible HTTP endpoint for the real server process (COHERE_BASE_URL): /v1/embed,
 * /v1/chat (whole or streamed as Cohere streams it, newline-delimited JSON) and
 * /v1/check-api-key, so the tests run the cohere-ai client itself over HTTP.
 */
export async function startFakeCohere(): Promise<FakeCohere> {
  const fake: Omit<FakeCohere, 'url' | 'close'> = { mode: 'whole', requests: [], abandonedStreams: 0 };
  const citation = { start: 0, end: FAKE_ANSWER.length, text: FAKE_ANSWER, document_ids: ['1'] };
  const respond = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const chatStream = (res: ServerResponse) => {
    if (fake.mode === 'refuse') return respond(res, 400, { message: 'invalid request' });
    res.writeHead(200, { 'content-type': 'application/stream+json' });
    res.write(streamEvent({ is_finished: false, event_type: 'stream-start', generation_id: 'g1' }));
    const first = streamEvent({ is_finished: false, event_type: 'text-generation', text: FAKE_ANSWER_PIECES[0] });
    // Cut once the client has had the first piece: destroying the socket at once would drop it unsent.
    if (fake.mode === 'cut') return res.write(first, () => setTimeout(() => res.socket?.destroy(), 200));
    res.write(first);
    if (fake.mode === 'hold') {
      res.on('close', () => {
        if (!res.writableEnded) fake.abandonedStreams++;
      });
      return;
    }
    for (const text of FAKE_ANSWER_PIECES.slice(1))
      res.write(streamEvent({ is_finished: false, event_type: 'text-generation', text }));
    res.end(
      streamEvent({
        is_finished: true,
        event_type: 'stream-end',
        finish_reason: 'COMPLETE',
        response: { response_id: 'r1', generation_id: 'g1', text: FAKE_ANSWER, citations: [citation] },
      }),
    );
  };
  const handle = (req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>) => {
    fake.requests.push({ path: req.url ?? '', authorization: req.headers.authorization, body });
    switch (req.url) {
      case '/v1/embed': {
        const texts = Array.isArray(body.texts) ? body.texts.map(String) : [];
        return respond(res, 200, {
          response_type: 'embeddings_by_type',
          id: 'e1',
          texts,
          embeddings: { float: texts.map(embedding) },
          meta: { api_version: { version: '1' } },
        });
      }
      case '/v1/chat':
        if (body.stream === true) return chatStream(res);
        return respond(res, 200, {
          response_id: 'r1',
          generation_id: 'g1',
          text: FAKE_ANSWER,
          finish_reason: 'COMPLETE',
          citations: [citation],
        });
      case '/v1/check-api-key':
        return respond(res, 200, { valid: true });
      default:
        return respond(res, 404, { message: 'not found' });
    }
  };
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      const parsed: unknown = text ? JSON.parse(text) : {};
      handle(req, res, typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {});
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
