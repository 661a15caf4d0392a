import type { IncomingMessage } from 'node:http';

/** The boundary parameter of a multipart Content-Type (RFC 2046: quoted or a token). */
export function boundaryOf(contentType: string | undefined): string | null {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
  return match ? (match[1] ?? match[2]) : null;
}

/**
 * Watches a multipart body's bytes for its close delimiter (`--boundary--`, RFC 2046). Busboy
 * reports a body that ends without it only as "Unexpected end of multipart data", which
 * @fastify/multipart takes for a normal end: a form cut just after a part's delimiter would
 * then be accepted as if whole. A boundary never occurs inside a part, so seeing the close
 * delimiter anywhere in the stream is seeing the form's end.
 */
export class ClosingDelimiterWatch {
  private readonly delimiter: Buffer;
  /** The last bytes of the previous chunk, so a delimiter split across chunks is found. */
  private carry: Buffer;
  seen = false;

  constructor(boundary: string) {
    this.delimiter = Buffer.from(`\r\n--${boundary}--`);
    // The first delimiter of a body has no CRLF before it (busboy reads it as if it had one).
    this.carry = Buffer.from('\r\n');
  }

  /**
   * Starts watching the request's bytes. Call it in the same tick as the parser is piped
   * (the first step of `request.parts()`): the listener then shares the stream's flow with the
   * parser and sees every chunk it sees.
   */
  watch(raw: IncomingMessage): void {
    raw.on('data', (chunk: Buffer) => this.push(chunk));
  }

  push(chunk: Buffer): void {
    if (this.seen) return;
    const overlap = this.delimiter.length - 1;
    // Only the joint needs a copy: the chunk itself is searched where it lies.
    const joint = Buffer.concat([this.carry, chunk.subarray(0, overlap)]);
    if (joint.includes(this.delimiter) || chunk.includes(this.delimiter)) {
      this.seen = true;
      return;
    }
    const tail = chunk.length >= overlap ? chunk : joint;
    this.carry = Buffer.from(tail.subarray(Math.max(0, tail.length - overlap)));
  }
}
