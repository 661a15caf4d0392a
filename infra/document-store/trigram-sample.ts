/** Rows of the text index read for the sample (evenly spread over its rowids). */
const SAMPLE_ROWS = 500;
/** Code points of each field read into the sample: a long post costs no more than a short one. */
const FIELD_POINTS = 2000;
/**
 * The share of rows a needle's chosen trigrams may be guessed to be found together in (the
 * product of their shares in the sample) for them to drive its search. Tried at 0.2% to 2% over
 * the search benchmark's needles: alike within the noise.
 */
const DRIVING_SHARE = 0.01;
/** Trigrams ANDed when a search is driven by its rarest ones. */
const DRIVING_TRIGRAMS = 3;

/** What the sample reads: the index's rowid range, and the texts of the rows (of those rowids) that exist. */
export interface SampleSource {
  rowidRange(): { min: number; max: number } | null;
  textsOf(rowids: readonly number[]): string[][];
}

/** The distinct trigrams (three code points) of a text, in order of first appearance. */
export function trigramsOf(points: readonly string[]): string[] {
  const seen = new Set<string>();
  for (let i = 0; i + 3 <= points.length; i++) seen.add(points[i] + points[i + 1] + points[i + 2]);
  return [...seen];
}

/**
 * A trigram as a number when its code points are all in the Basic Multilingual Plane (16 bits
 * each, 48 in all: an exact double), else as its text: a set of numbers fills several times
 * faster than one of short strings, which the sample's 300,000 or so trigrams showed.
 */
type TrigramKey = number | string;

function keyOf(a: number, b: number, c: number): TrigramKey {
  return a <= 0xffff && b <= 0xffff && c <= 0xffff ? (a * 0x10000 + b) * 0x10000 + c : String.fromCodePoint(a, b, c);
}

/** Adds the trigrams of the text's first FIELD_POINTS code points to the set. */
function addTrigrams(set: Set<TrigramKey>, text: string): void {
  let first = 0;
  let second = 0;
  let points = 0;
  for (let i = 0; i < text.length && points < FIELD_POINTS; points++) {
    const point = text.codePointAt(i) as number;
    i += point > 0xffff ? 2 : 1;
    if (points >= 2) set.add(keyOf(first, second, point));
    first = second;
    second = point;
  }
}

function trigramKey(trigram: string): TrigramKey {
  const [a, b, c] = [...trigram].map((point) => point.codePointAt(0) as number);
  return keyOf(a, b, c);
}

/**
 * How many rows of a sample of the text index hold each trigram: a guess of which trigrams of a
 * needle are rare. FTS5 finds a phrase by walking the lists of rows of all its trigrams; one of a
 * common trigram (`the`, `ion`, `s t`) lists most rows, and a needle of a dozen such costs
 * milliseconds even when few rows hold it. A few of its rarest trigrams find a short superset
 * that `instr` then checks exactly (a post's texts, read from the index's content, cost
 * microseconds). The sample only steers
 * the choice: a wrong guess costs time, never a result. It is read again once the index has grown
 * by half (or shrunk, a collection dropped and filled again), when a search next needs it.
 */
export class TrigramSample {
  private counts = new Map<TrigramKey, number>();
  private rows = 0;
  private sampledMax = -1;

  constructor(private readonly source: SampleSource) {}

  /**
   * A few rare trigrams of the needle, apart from each other where it can (overlapping ones are
   * mostly found together, so they narrow the rows little), when the rows holding them all are
   * guessed few; else null, and the whole phrase is the cheaper search.
   */
  drivingTrigrams(points: readonly string[]): string[] | null {
    const trigrams = trigramsOf(points);
    if (trigrams.length <= DRIVING_TRIGRAMS) return null;
    this.refresh();
    if (this.rows === 0) return null;
    const at = new Map<string, number>();
    for (let i = points.length - 3; i >= 0; i--) at.set(points[i] + points[i + 1] + points[i + 2], i);
    const ranked = trigrams
      .map((trigram) => ({
        trigram,
        at: at.get(trigram) ?? 0,
        share: ((this.counts.get(trigramKey(trigram)) ?? 0) + 0.5) / this.rows,
      }))
      .sort((a, b) => a.share - b.share);
    const picked = [ranked[0]];
    for (const candidate of ranked) {
      if (picked.length === DRIVING_TRIGRAMS) break;
      if (picked.every((chosen) => Math.abs(chosen.at - candidate.at) >= 3)) picked.push(candidate);
    }
    for (const candidate of ranked) {
      if (picked.length === DRIVING_TRIGRAMS) break;
      if (!picked.includes(candidate)) picked.push(candidate);
    }
    const share = picked.reduce((product, chosen) => product * chosen.share, 1);
    if (share > DRIVING_SHARE) return null;
    return picked.map((chosen) => chosen.trigram);
  }

  private refresh(): void {
    const range = this.source.rowidRange();
    const max = range?.max ?? -1;
    if (this.sampledMax >= 0 && max <= this.sampledMax * 1.5 + 64 && max >= this.sampledMax / 2) return;
    this.counts = new Map();
    this.rows = 0;
    this.sampledMax = max;
    if (!range) return;
    const span = range.max - range.min + 1;
    const step = Math.max(1, span / SAMPLE_ROWS);
    const rowids: number[] = [];
    for (let at = range.min; at <= range.max && rowids.length < SAMPLE_ROWS; at += step) rowids.push(Math.floor(at));
    for (const texts of this.source.textsOf(rowids)) {
      const held = new Set<TrigramKey>();
      for (const text of texts) addTrigrams(held, text);
      for (const trigram of held) this.counts.set(trigram, (this.counts.get(trigram) ?? 0) + 1);
      this.rows++;
    }
  }
}
