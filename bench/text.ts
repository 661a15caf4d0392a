/** Deterministic pseudo-random words, so every run generates the same data sets. */
export class TextGenerator {
  private state: number;
  private readonly words: string[];

  constructor(seed = 42, vocabulary = 5000) {
    this.state = seed >>> 0 || 1;
    const syllables = [
      'ar',
      'chi',
      've',
      'lis',
      'bon',
      'map',
      'mu',
      'se',
      'um',
      'let',
      'ter',
      'pho',
      'to',
      'gra',
      'ph',
      'scan',
      'old',
      'ci',
      'ty',
      'ri',
      'ver',
      'port',
      'book',
      'ink',
    ];
    this.words = Array.from({ length: vocabulary }, () => {
      const n = 2 + this.int(3);
      return Array.from({ length: n }, () => syllables[this.int(syllables.length)]).join('');
    });
  }

  /** xorshift32: fast and good enough to vary text. */
  private next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state;
  }

  int(below: number): number {
    return this.next() % below;
  }

  sentence(words: number): string {
    return Array.from({ length: words }, () => this.words[this.int(this.words.length)]).join(' ');
  }
}

/** 'YYYY-MM-DD HH:MM:SS' in UTC, the blog's stored timestamp form. */
export function blogTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}
