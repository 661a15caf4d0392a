import { connect } from 'node:net';

export interface RawAnswer {
  /** The status of the answer, or null when the server closed the connection without one. */
  status: number | null;
  body: string;
}

export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The bytes written after the head. */
  body: Buffer;
  /**
   * Content-Length to declare. More than body.length announces bytes that never come: the
   * socket's write side is then ended, as a client that went away does. Otherwise it stays
   * open until the server closes it (Node's server drops a half-closed request unanswered).
   */
  contentLength: number;
}

/**
 * One request over a raw TCP connection, so a test can send what no HTTP client would: a body
 * shorter than its Content-Length, or a multipart body cut anywhere. Resolves with the answer
 * the server wrote before closing (if any); never rejects on a reset, which is a valid end.
 */
export function rawRequest(port: number, request: RawRequest, timeoutMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer and no close within ${timeoutMs} ms`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: status ? Number(status[1]) : null, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    };
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A reset (the server gave up on a body that never came) ends the exchange like a close.
    socket.on('error', () => undefined);
    socket.on('close', done);
    const head =
      `${request.method} ${request.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n` +
      Object.entries(request.headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('') +
      `Content-Length: ${request.contentLength}\r\n\r\n`;
    socket.write(head);
    if (request.contentLength > request.body.length) socket.end(request.body);
    else socket.write(request.body);
  });
}
