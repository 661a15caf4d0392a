/**
 * Deterministic English descriptions and questions of a museum collection: the sentence model
 * reads real words (made-up ones cut into many word pieces and cost more), so its speed here is
 * what a museum's own texts would see.
 */
const OBJECTS = [
  'map',
  'violin',
  'harpsichord',
  'coin hoard',
  'herbarium',
  'bible leaf',
  'suit of armour',
  'table clock',
  'logbook',
  'poster',
  'papyrus',
  'tea bowl',
  'locomotive model',
  'psalter',
  'footprint',
  'banner',
  'telescope',
  'brooch',
  'portrait',
  'chair',
  'tapestry',
  'sword',
  'globe',
  'letter',
  'photograph',
  'vase',
  'manuscript',
  'quilt',
  'compass',
  'helmet',
];
const MATERIALS = [
  'oak',
  'brass',
  'silver',
  'parchment',
  'silk',
  'porcelain',
  'bronze',
  'paper',
  'walnut',
  'iron',
  'linen',
  'glass',
  'ivory',
  'copper',
  'wool',
];
const PLACES = [
  'Lisbon',
  'Cremona',
  'Antwerp',
  'Mainz',
  'Kyoto',
  'Augsburg',
  'Paris',
  'Suriname',
  'Korea',
  'Edinburgh',
  'Venice',
  'Delft',
  'Boston',
  'Cairo',
  'Prague',
  'Seville',
];
const MAKERS = [
  'a local workshop',
  'an unknown engraver',
  'a family of instrument makers',
  'monks of an abbey',
  'a travelling artist',
  'a famous printer',
  'students of the university',
  'a ship carpenter',
];
const USES = [
  'to record the voyage',
  'for the cathedral choir',
  'as a wedding gift',
  'to teach navigation',
  'for a wealthy merchant',
  'to celebrate a victory',
  'for daily prayer',
  'to measure the stars',
];
const STATES = [
  'The varnish has darkened with age',
  'A later owner repaired a crack near the edge',
  'The colours are still bright',
  'Several pages are missing',
  'It was cleaned by our conservators last year',
  'The original case survives',
  'Insects damaged the lower corner',
  'It is shown in the east gallery',
];
const ARRIVALS = [
  'It was donated to the museum',
  'The museum bought it at auction',
  'It came to the collection as a bequest',
  'Archaeologists found it during an excavation',
  'A private collector lent it to us',
];

export class EnglishGenerator {
  private state: number;

  constructor(seed = 7) {
    this.state = seed >>> 0 || 1;
  }

  private int(below: number): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state % below;
  }

  private pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)];
  }

  private year(): number {
    return 1200 + this.int(800);
  }

  title(): string {
    return `${this.pick(MATERIALS)} ${this.pick(OBJECTS)} from ${this.pick(PLACES)}`.replace(/^./, (c) =>
      c.toUpperCase(),
    );
  }

  /** About `words` words of description, in whole sentences. */
  description(words: number): string {
    const sentences: string[] = [];
    let count = 0;
    while (count < words) {
      const sentence = [
        () =>
          `A ${this.pick(OBJECTS)} of ${this.pick(MATERIALS)} made by ${this.pick(MAKERS)} in ${this.pick(PLACES)} around ${this.year()}.`,
        () => `It was made ${this.pick(USES)} and later travelled to ${this.pick(PLACES)}.`,
        () => `${this.pick(STATES)}.`,
        () => `${this.pick(ARRIVALS)} in ${1850 + this.int(170)}.`,
        () =>
          `The decoration shows ${this.pick(['birds', 'flowers', 'ships', 'saints', 'dragons', 'stars', 'hunting scenes'])} in ${this.pick(['gold', 'red ink', 'blue glaze', 'silver thread', 'black lacquer'])}.`,
      ][this.int(5)]();
      sentences.push(sentence);
      count += sentence.split(' ').length;
    }
    return sentences.join(' ');
  }

  question(): string {
    return [
      () => `Do you have a ${this.pick(OBJECTS)} from ${this.pick(PLACES)}?`,
      () => `What was made ${this.pick(USES)}?`,
      () => `Which objects of ${this.pick(MATERIALS)} came from ${this.pick(PLACES)} around ${this.year()}?`,
      () =>
        `Is there anything decorated with ${this.pick(['birds', 'flowers', 'ships', 'saints'])} made by ${this.pick(MAKERS)}?`,
      () => `Who gave the museum its ${this.pick(OBJECTS)} number ${this.int(100_000)}?`,
    ][this.int(5)]();
  }
}
