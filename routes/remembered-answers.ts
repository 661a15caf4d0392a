import type { FastifyReply } from 'fastify';
import type { DocumentStore } from '../infra/document-store/port.js';

/** A list's whole answer: its body, and the headers made with it (its total, its links). */
interface Answer {
  body: Buffer;
  headers: [string, string][];
}

/** Bytes of bodies kept at most; past it the answers start again from none. */
const ANSWER_BYTES_LIMIT = 4 * 1024 * 1024;

/**
 * Whole answers of a list route by what was asked, kept while the document store's change mark
 * stays (DocumentStore.changeMark: no document written here, no commit by another process). A
 * list request that was answered before then costs its key and a map look-up instead of its
 * page's look-ups, each post's author and category, the page's JSON and its Link header, through
 * several awaits: the read benchmark's server CPU per request went from 55 to 71 us to 39 to
 * 47 us (docs/perf-history.md). A store without a change mark keeps nothing here.
 */
export class RememberedAnswers {
  private mark: number | undefined;
  private readonly answers = new Map<string, Answer>();
  private bytes = 0;

  constructor(
    private readonly documents: DocumentStore,
    /** The headers `build` sets that belong to the answer. */
    private readonly headerNames: readonly string[],
  ) {}

  /**
   * The body for `key`: the one kept, its headers set on `reply`, else `build`'s (which sets the
   * headers itself), kept if nothing changed in the store while it was built.
   */
  async body(key: string, reply: FastifyReply, build: () => Promise<Buffer>): Promise<Buffer> {
    const mark = this.documents.changeMark?.();
    if (mark === undefined) return build();
    if (mark !== this.mark) this.forget(mark);
    const known = this.answers.get(key);
    if (known) {
      for (const [name, value] of known.headers) reply.header(name, value);
      return known.body;
    }
    const body = await build();
    // The mark only rises: the same mark now means no write, and no other request moved this.mark.
    if (this.documents.changeMark?.() === mark) this.keep(key, body, reply);
    return body;
  }

  private keep(key: string, body: Buffer, reply: FastifyReply): void {
    if (this.bytes + body.length > ANSWER_BYTES_LIMIT) this.forget(this.mark);
    const headers: [string, string][] = [];
    for (const name of this.headerNames) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers.push([name, String(value)]);
    }
    this.answers.set(key, { body, headers });
    this.bytes += body.length;
  }

  private forget(mark: number | undefined): void {
    this.answers.clear();
    this.bytes = 0;
    this.mark = mark;
  }
}
