import { Readable } from 'node:stream';
import { StoredEventSchema, type EventStore, type StoredEvent } from '../../infra/event-store/port.js';

const PAGE_SIZE = 1000;

/**
 * One line of events.ndjson: a stored event, field for field, as the restore appends it again.
 * A restore checks each line against this schema (an archive comes from outside the process).
 */
export const EventLineSchema = StoredEventSchema;
export type EventLine = StoredEvent;

/**
 * The log from the start up to `upTo` as NDJSON, read page by page. Everything at or below a
 * position taken from lastPosition() is committed, so this is a prefix of the log, never a torn
 * write, whatever is appended meanwhile.
 */
export function eventLogStream(
  store: EventStore,
  upTo: number,
  counter: { events: number },
  progress?: { tick(amount: number): void },
): Readable {
  async function* pages(): AsyncGenerator<Buffer> {
    let after = 0;
    while (after < upTo) {
      const batch = (await store.readAll(after, PAGE_SIZE)).filter((e) => e.position <= upTo);
      if (batch.length === 0) return;
      const lines = batch.map((e) => {
        const line: EventLine = {
          position: e.position,
          streamId: e.streamId,
          streamVersion: e.streamVersion,
          type: e.type,
          data: e.data,
          metadata: e.metadata,
        };
        return JSON.stringify(line);
      });
      counter.events += batch.length;
      progress?.tick(batch.length);
      yield Buffer.from(`${lines.join('\n')}\n`);
      after = batch[batch.length - 1].position;
    }
  }
  return Readable.from(pages(), { objectMode: false });
}
