import { dictionary } from '@zxcvbn-ts/language-en';

/**
 * English as it is written: words of the 29,782 most frequent on English Wikipedia (the list
 * zxcvbn ships, in frequency order), drawn with Zipf's law (the word of rank r about 1/r as
 * often as the most frequent), so common words ("the", "and") are in every post and most
 * others in a few. A substring search over such text meets the trigram statistics of real
 * posts; the syllable words of `TextGenerator` share a few hundred trigrams between them all.
 */
export class WikipediaText {
  private state: number;
  private readonly words: readonly string[] = dictionary['wikipedia-en'];
  private readonly logRanks = Math.log(this.words.length + 1);

  constructor(seed = 11) {
    this.state = seed >>> 0 || 1;
  }

  /** xorshift32, as `TextGenerator`: the same data set on every run. */
  private uniform(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state / 2 ** 32;
  }

  /** A word drawn by frequency (rank r with probability about 1/r). */
  word(): string {
    const rank = Math.floor(Math.exp(this.uniform() * this.logRanks));
    return this.words[Math.min(this.words.length, Math.max(1, rank)) - 1];
  }

  /** A word of the vocabulary, each as likely as any other: what a reader might look for. */
  anyWord(): string {
    return this.words[Math.floor(this.uniform() * this.words.length)];
  }

  sentence(words: number): string {
    return Array.from({ length: words }, () => this.word()).join(' ');
  }
}
