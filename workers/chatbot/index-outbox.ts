import type { DocumentStore } from '../../infra/document-store/port.js';
import { resourceKey } from '../../infra/vector-index/port.js';
import { indexOutbox, type ResourceRef } from '../../contracts/chatbot/documents.js';
import type { IndexOutcome } from './index-resource.js';

/** Marks read per page when a start queues the owed work: a page at a time, so requests go on between. */
const OUTBOX_PAGE = 1000;

/**
 * Runs one resource's index or embed job, then settles its outbox mark unless a later event
 * marked it again meanwhile (that event's own job follows): a job that left stand-in vectors
 * leaves the mark at the 'embed' stage (the model's vectors are still owed), any other outcome
 * removes it.
 */
export async function settlingOutbox(
  documents: DocumentStore,
  ref: ResourceRef,
  run: () => Promise<IndexOutcome>,
): Promise<IndexOutcome> {
  const key = resourceKey(ref.type, ref.id);
  const marked = await indexOutbox(documents).findOne({ _id: key });
  const outcome = await run();
  if (!marked) return outcome;
  const unchanged = { _id: key, position: marked.position };
  if (outcome === 'provisional') await indexOutbox(documents).updateOne(unchanged, { $set: { stage: 'embed' } });
  else await indexOutbox(documents).deleteOne(unchanged);
  return outcome;
}

interface Schedulers {
  indexing: { enqueue(ref: ResourceRef): Promise<void> };
  embedding: { enqueue(ref: ResourceRef): Promise<void> };
}

/**
 * Queues the job every marked resource is owed (the index job, or only the embed job at the
 * 'embed' stage), a page at a time, yielding to requests between pages. Answers how many.
 */
export async function enqueueOutbox(documents: DocumentStore, schedulers: Schedulers): Promise<number> {
  let after = '';
  let queued = 0;
  for (;;) {
    const page = await indexOutbox(documents).find(
      { _id: { $gt: after } },
      { sort: { _id: 1 }, limit: OUTBOX_PAGE, fields: ['type', 'id', 'stage'] },
    );
    for (const mark of page) {
      const ref = { type: mark.type, id: mark.id };
      await (mark.stage === 'embed' ? schedulers.embedding : schedulers.indexing).enqueue(ref);
    }
    queued += page.length;
    if (page.length < OUTBOX_PAGE) return queued;
    after = page[page.length - 1]._id;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
