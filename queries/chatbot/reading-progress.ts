import type { DocumentStore } from '../../infra/document-store/port.js';
import { chatbotBlogPosts, indexOutbox } from '../../contracts/chatbot/documents.js';
import { items, mediaDocs, sitePages } from '../../contracts/platform/documents.js';

/** Where the chatbot's worker keeps the pace at which it reads the collection, for /health and the reindex CLI. */
export const CHATBOT_READING = 'chatbot_reading';

/** The pace the worker measured last: resources given the model's vectors per second. */
export interface ReadingPaceDoc {
  _id: 'pace';
  resources_per_second: number;
  /** ISO 8601. */
  measured_at: string;
  [key: string]: unknown;
}

export const readingPace = (d: DocumentStore) => d.collection<ReadingPaceDoc>(CHATBOT_READING);

/** A pace older than this is not used for an estimate: nothing has been read lately. */
export const PACE_FRESH_MS = 5 * 60_000;

/** How far the chatbot has read the collection: what /health and `npm run reindex -- --status` say. */
export interface ReadingProgress {
  /** Items, media, site pages and blog posts the read models hold. */
  resources: number;
  /** Those whose index entry holds their current text (by their words at least); a private one's entry is its absence. */
  searchable_by_words: number;
  /** Those whose index entry holds the model's vectors of their current text. */
  searchable_by_meaning: number;
  /** True while some resource is not yet searchable by meaning. */
  reading: boolean;
  /** Estimated seconds until every resource is searchable by meaning, at the pace measured last; null when unknown, 0 when done. */
  seconds_left: number | null;
}

/**
 * Counts from the read models: the resources, and the index outbox's marks (the work still owed
 * for each: its index job, or only the model's vectors at the 'embed' stage). So a CLI reading
 * the same files says what the server does.
 */
export async function readingProgress(documents: DocumentStore, now: Date): Promise<ReadingProgress> {
  const [itemCount, mediaCount, pageCount, postCount, owed, owedMeaningOnly, pace] = await Promise.all([
    items(documents).count(),
    mediaDocs(documents).count(),
    sitePages(documents).count(),
    chatbotBlogPosts(documents).count(),
    indexOutbox(documents).count(),
    indexOutbox(documents).count({ stage: 'embed' }),
    readingPace(documents).findOne({ _id: 'pace' }),
  ]);
  const resources = itemCount + mediaCount + pageCount + postCount;
  // A mark may name a resource deleted since (its job removes it): never below zero.
  const searchableByMeaning = Math.max(0, resources - owed);
  const searchableByWords = Math.max(0, resources - (owed - owedMeaningOnly));
  const fresh = pace && pace.resources_per_second > 0 && now.getTime() - Date.parse(pace.measured_at) <= PACE_FRESH_MS;
  return {
    resources,
    searchable_by_words: searchableByWords,
    searchable_by_meaning: searchableByMeaning,
    reading: owed > 0,
    seconds_left: owed === 0 ? 0 : fresh ? Math.ceil(owed / pace.resources_per_second) : null,
  };
}

/** One line for people: the CLI prints it, and the chat panel's notice says the gist. */
export function describeProgress(progress: ReadingProgress): string {
  const { resources, searchable_by_words: words, searchable_by_meaning: meaning, seconds_left: left } = progress;
  if (!progress.reading) return `The collection is fully searchable by meaning: ${meaning} of ${resources} resources.`;
  const estimate = left === null ? 'time left unknown (no pace measured lately)' : `about ${formatDuration(left)} left`;
  return `Still reading the collection: ${words} of ${resources} resources searchable by words, ${meaning} by meaning; ${estimate}.`;
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** How long a chat reuses the answer to "is the collection still being read?". */
const STILL_READING_FRESH_MS = 2_000;

/**
 * Whether the collection is still being read (some index work owed), asked by every chat: the
 * outbox is counted at most every STILL_READING_FRESH_MS, and a chat meanwhile reuses the answer.
 */
export class CollectionReading {
  private known: { at: number; reading: Promise<boolean> } | null = null;

  constructor(private readonly documents: DocumentStore) {}

  stillReading(): Promise<boolean> {
    const now = performance.now();
    if (!this.known || now - this.known.at >= STILL_READING_FRESH_MS) {
      // A store that does not answer says nothing about the reading: no notice rather than a failed chat.
      const reading = indexOutbox(this.documents)
        .count()
        .then(
          (owed) => owed > 0,
          () => false,
        );
      this.known = { at: now, reading };
    }
    return this.known.reading;
  }
}
