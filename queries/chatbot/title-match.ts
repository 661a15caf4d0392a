import type { Embedder } from '../../infra/embedder/port.js';
import {
  titleWords,
  type SearchFilter,
  type TitledChunk,
  type VectorHit,
  type VectorIndex,
} from '../../infra/vector-index/port.js';
import { cosineDistance } from '../../infra/embedder/cosine.js';

/** Titles longer than this many words are not looked for in a query (a query of up to twice as many words). */
export const MAX_TITLE_WORDS = 24;

/** Distinct titles whose distance to a query is computed; resources titled otherwise beyond them are left to the vectors. */
export const MAX_TITLES_EMBEDDED = 8;

/**
 * The title keys a query may be naming: every run of its words that makes up at least half of
 * them ("the starry night", "the starry night by van gogh"), longest first. A title shorter than
 * half the query is a word or two of a question, not its subject.
 */
export function titlePhrases(query: string): string[] {
  const words = titleWords(query);
  const phrases = new Set<string>();
  for (
    let length = Math.min(words.length, MAX_TITLE_WORDS);
    length >= Math.ceil(words.length / 2) && length > 0;
    length--
  ) {
    for (let start = 0; start + length <= words.length; start++)
      phrases.add(words.slice(start, start + length).join(' '));
  }
  return [...phrases];
}

/**
 * Embeds a query together with the titles it names, and gives each titled resource a hit at the
 * cosine distance between the query and its title. Every chunk of a resource is embedded with
 * its title in front (workers/chatbot/index-resource.ts), so the title is a text of the
 * resource the index already stands for; embedding it here, beside the query and only when the
 * query names it, costs the model a short text per search instead of one per resource at
 * indexing. The hit carries the resource's first chunk, the one its title opens, for the
 * snippet and the answerer's evidence. Titles are embedded as queries: the embedded model's
 * vectors do not depend on the purpose, and a query-to-title distance is what is wanted of
 * Cohere's too.
 */
export async function embedWithTitles(
  deps: { embedder: Embedder; vectorIndex: VectorIndex },
  { query, limit, filters }: { query: string; limit: number; filters: SearchFilter[] },
): Promise<{ vector: Float32Array; titleHits: VectorHit[] }> {
  const phrases = titlePhrases(query);
  // One filter per model the index is searched in (its own, and an earlier one's while the collection is read again).
  const titled =
    phrases.length > 0
      ? (await Promise.all(filters.map((filter) => deps.vectorIndex.titled(phrases, limit, filter)))).flat()
      : [];
  const titles = [...new Set(titled.map((chunk) => chunk.title))].slice(0, MAX_TITLES_EMBEDDED);
  const [vector, ...titleVectors] = await deps.embedder.embed([query, ...titles], 'query');
  const distanceOf = new Map(titles.map((title, index) => [title, cosineDistance(vector, titleVectors[index])]));
  const titleHits = titled.flatMap((chunk: TitledChunk) => {
    const distance = distanceOf.get(chunk.title);
    return distance === undefined ? [] : [{ ...chunk, distance }];
  });
  return { vector, titleHits };
}
