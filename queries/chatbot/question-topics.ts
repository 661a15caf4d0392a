/**
 * Words that say nothing of a topic: English function words and the words every question to a
 * collection holds ("who", "museum"). Kept short on purpose: a librarian reads the top words, and
 * a missed function word shows there at once.
 */
const STOP_WORDS = new Set(
  (
    'a about above after again all also am an and any are as at be been before being below between both but by can ' +
    'could did do does doing down during each few for from further had has have having he her here hers him his how i ' +
    'if in into is it its itself just me more most my no nor not now of off on once only or other our ours out over own ' +
    'same she should so some such than that the their theirs them then there these they this those through to too under ' +
    'until up very was we were what when where which while who whom why will with would you your yours tell show give ' +
    'find know please many much there any anything something museum library collection'
  ).split(' '),
);

export interface TopicCount {
  word: string;
  /** How many questions hold the word (once each, however often a question repeats it). */
  questions: number;
}

/** Words of three letters or more that are not stop words, lower case, each once. */
export function topicWords(question: string): Set<string> {
  const words = new Set<string>();
  for (const word of question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (word.length >= 3 && !STOP_WORDS.has(word) && !/^\d+$/.test(word)) words.add(word);
  }
  return words;
}

/** The words most questions hold, most first, then A to Z: only the counts are held, never the texts. */
export async function frequentWords(
  questions: AsyncIterable<string> | Iterable<string>,
  limit: number,
): Promise<TopicCount[]> {
  const counts = new Map<string, number>();
  for await (const question of questions) {
    for (const word of topicWords(question)) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, limit)
    .map(([word, questions]) => ({ word, questions }));
}
