import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Query } from 'mingo';
import { update as mingoUpdate, type UpdateExpression } from 'mingo/updater';
import t from 'tap';
import type { Document, Filter, SortSpec, Update } from '../../../infra/document-store/port.js';
import { SqliteDocumentStore } from '../../../infra/document-store/sqlite.js';
import { seededRandom } from '../../seeded-random.js';

/**
 * The SQLite store against mingo (the reference semantics of the filter subset): random
 * documents, random filters, sorts and updates of exactly the subset sql-filter.ts and
 * document-updates.ts define, the same answers from both.
 */

type Scalar = string | number | boolean | null;

class Random {
  constructor(readonly next: () => number) {}
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  some<T>(items: readonly T[], max: number): T[] {
    const out: T[] = [];
    const n = this.int(1, max);
    for (let i = 0; i < n; i++) out.push(this.pick(items));
    return out;
  }
}

const NUMBERS = [-2, -1, 0, 1, 2, 3, 1.5, -0.5, 10];
const STRINGS = ['', 'a', 'b', 'ab', 'B', 'ba', 'é', '10', '1'];

function scalar(r: Random): Scalar {
  const kind = r.int(0, 9);
  if (kind <= 3) return r.pick(NUMBERS);
  if (kind <= 7) return r.pick(STRINGS);
  if (kind === 8) return r.chance(0.5);
  return null;
}

function rangeOperand(r: Random): string | number {
  return r.chance(0.5) ? r.pick(NUMBERS) : r.pick(STRINGS);
}

/** Sets `key` to the value `make` gives, or leaves it missing now and then. */
function maybe(doc: Record<string, unknown>, key: string, r: Random, make: () => unknown): void {
  if (!r.chance(0.2)) doc[key] = make();
}

function randomDocument(r: Random, id: number): Document {
  const doc: Document = { _id: id };
  maybe(doc, 'n', r, () => (r.chance(0.7) ? r.pick(NUMBERS) : scalar(r)));
  maybe(doc, 's', r, () => (r.chance(0.7) ? r.pick(STRINGS) : scalar(r)));
  maybe(doc, 'b', r, () => r.pick([true, false, null]));
  maybe(doc, 'count', r, () => r.pick(NUMBERS));
  // No repeated tags: mingo's $addToSet also drops repeats already in the array, MongoDB's does not.
  maybe(doc, 'tags', r, () => (r.chance(0.15) ? [] : [...new Set(r.some([...STRINGS, ...NUMBERS, null, true], 3))]));
  maybe(doc, 'm', r, () => (r.chance(0.5) ? scalar(r) : r.some(['a', 'b', 1, 2, null, false], 3)));
  maybe(doc, 'o', r, () => {
    const o: Record<string, unknown> = {};
    maybe(o, 'x', r, () => scalar(r));
    maybe(o, 'y', r, () => (r.chance(0.5) ? scalar(r) : r.some(['a', 1, null], 2)));
    return o;
  });
  maybe(doc, 'list', r, () => {
    const element = () => {
      const e: Record<string, unknown> = {};
      maybe(e, 'x', r, () => scalar(r));
      maybe(e, 'y', r, () => r.pick(STRINGS));
      return e;
    };
    if (r.chance(0.2)) return element();
    const items: Record<string, unknown>[] = [];
    const n = r.int(0, 3);
    for (let i = 0; i < n; i++) items.push(element());
    return items;
  });
  return doc;
}

const FILTER_PATHS = ['n', 's', 'b', 'count', 'tags', 'm', 'o.x', 'o.y', 'list.x', 'tags.0', '_id'];

function randomCondition(r: Random, path: string): unknown {
  const value = () => (path === '_id' ? r.int(0, 40) : scalar(r));
  switch (r.int(0, 11)) {
    case 0:
    case 1:
      return value();
    case 2:
      return { $eq: value() };
    case 3:
      return { $ne: value() };
    case 4:
      return { $in: r.some([value(), value(), value()], 3) };
    case 5:
      return { $nin: r.some([value(), value()], 2) };
    case 6: {
      const low = r.pick(['$gt', '$gte']);
      const cond: Record<string, unknown> = { [low]: path === '_id' ? r.int(0, 40) : rangeOperand(r) };
      if (r.chance(0.4)) cond[r.pick(['$lt', '$lte'])] = path === '_id' ? r.int(0, 40) : rangeOperand(r);
      return cond;
    }
    case 7:
      return { [r.pick(['$lt', '$lte'])]: path === '_id' ? r.int(0, 40) : rangeOperand(r) };
    case 8:
      return { $exists: r.chance(0.5) };
    case 9:
      return r.chance(0.5)
        ? { $regex: r.pick(['^a', 'b$', 'A', '.', '^$', 'é']), $options: r.pick(['', 'i']) }
        : new RegExp(r.pick(['^b', 'a']), r.pick(['', 'i']));
    default:
      if (path === 'tags' || path === 'm') {
        return { $elemMatch: r.chance(0.5) ? { $gt: rangeOperand(r) } : { $in: [scalar(r), scalar(r)] } };
      }
      return { $ne: value() };
  }
}

function randomLeaf(r: Random): Filter {
  if (r.chance(0.1)) {
    return {
      list: { $elemMatch: r.chance(0.5) ? { x: scalar(r) } : { x: { $gte: rangeOperand(r) }, y: { $exists: true } } },
    };
  }
  const filter: Filter = {};
  for (const path of r.some(FILTER_PATHS, 2)) filter[path] = randomCondition(r, path);
  return filter;
}

function randomFilter(r: Random, depth = 0): Filter {
  const kind = r.int(0, 5);
  if (depth < 2 && kind === 0) return { $or: Array.from({ length: r.int(1, 3) }, () => randomFilter(r, depth + 1)) };
  if (depth < 2 && kind === 1) return { $and: Array.from({ length: r.int(1, 3) }, () => randomFilter(r, depth + 1)) };
  if (kind === 2) return {};
  const leaf = randomLeaf(r);
  if (depth < 2 && r.chance(0.2)) leaf.$or = [randomLeaf(r), randomLeaf(r)];
  return leaf;
}

const SORT_PATHS = ['n', 's', 'b', 'count', 'o.x'];

function randomSort(r: Random): SortSpec {
  const sort: SortSpec = {};
  for (const path of r.some(SORT_PATHS, 2)) sort[path] = r.pick([1, -1] as const);
  // Ties go by _id in both, so equal keys cannot order differently.
  sort._id = r.pick([1, -1] as const);
  return sort;
}

function randomUpdate(r: Random): Update {
  const update: Update = {};
  const operators = r.some(['$set', '$unset', '$inc', '$push', '$addToSet', '$pull', '$setNested'], 2);
  for (const operator of new Set(operators)) {
    switch (operator) {
      case '$set':
        // Arrays and objects only into a field no round declares indexed.
        update.$set = {
          ...update.$set,
          ...(r.chance(0.8) ? { [r.pick(['n', 's', 'fresh'])]: scalar(r) } : { fresh: r.pick([[1, 'a'], { k: 'v' }]) }),
        };
        break;
      case '$setNested':
        update.$set = { ...update.$set, 'o.x': scalar(r) };
        break;
      case '$unset':
        update.$unset = { [r.pick(['s', 'b', 'o.x', 'o.y', 'missing'])]: '' };
        break;
      case '$inc':
        update.$inc = { count: r.pick(NUMBERS) };
        break;
      case '$push':
      case '$addToSet':
      case '$pull':
        // One array operator at a time: MongoDB refuses two on the same field.
        // $push to an array of its own, so tags never repeat (see randomDocument).
        if (!update.$push && !update.$addToSet && !update.$pull) {
          update[operator] = {
            [operator === '$push' ? 'log' : 'tags']: r.pick([...STRINGS.slice(0, 4), 1, 2, null, true]),
          };
        }
        break;
    }
  }
  return update;
}

function ids(docs: Document[]): (string | number)[] {
  return docs.map((d) => d._id);
}

function mingoFind(docs: Document[], filter: Filter): Document[] {
  const query = new Query(filter);
  return docs.filter((doc) => query.test(doc));
}

function mingoSorted(docs: Document[], sort: SortSpec): Document[] {
  return new Query({}).find(docs).sort(sort).all() as Document[];
}

const ROUNDS = 24;
const DOCS_PER_ROUND = 60;
const QUERIES_PER_ROUND = 120;
const UPDATES_PER_ROUND = 25;

t.test('filters, sorts, skips and limits, counts, updates and deletes agree with mingo', async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'docstore-differential-'));
  const store = new SqliteDocumentStore(join(directory, 'read-models.sqlite'));
  t.teardown(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });
  let cases = 0;
  let mismatches = 0;
  const started = Date.now();
  for (let round = 0; round < ROUNDS; round++) {
    const seed = 1000 + round;
    const r = new Random(seededRandom(seed));
    // Half the rounds declare scalar fields as indexes, so the plain comparisons are checked too,
    const indexed = round % 2 === 1;
    const name = `round${round}`;
    const reference: Document[] = [];
    for (let id = 1; id <= DOCS_PER_ROUND; id++) {
      const doc = randomDocument(r, id);
      if (indexed && !(doc.n === undefined || doc.n === null || typeof doc.n === 'string' || typeof doc.n === 'number'))
        doc.n = null;
      if (indexed && !(doc.s === undefined || doc.s === null || typeof doc.s === 'string' || typeof doc.s === 'number'))
        doc.s = 'a';
      reference.push(doc);
    }
    // Their arrays (tags, m: strings, numbers, null, booleans, or a scalar) through element indexes too.
    const collection = store.collection<Document>(
      name,
      indexed ? { indexes: ['n', 's', ['count', 's']], elementIndexes: ['tags', 'm'] } : {},
    );
    await collection.putMany(structuredClone(reference));

    const check = (ok: boolean, what: string, details: object) => {
      cases++;
      if (!ok) {
        mismatches++;
        if (mismatches <= 10) t.fail(`seed ${seed}: ${what}`, details);
      }
    };

    for (let q = 0; q < QUERIES_PER_ROUND; q++) {
      const filter = randomFilter(r);
      const expected = mingoFind(reference, filter);
      const got = await collection.find(filter);
      const same = JSON.stringify(ids(got).sort()) === JSON.stringify(ids(expected).sort());
      check(same, 'find (as a set)', {
        filter: String(JSON.stringify(filter)),
        expected: ids(expected),
        got: ids(got),
      });
      check((await collection.count(filter)) === expected.length, 'count', { filter: JSON.stringify(filter) });

      const sort = randomSort(r);
      const skip = r.chance(0.3) ? r.int(0, 10) : 0;
      const limit = r.chance(0.5) ? r.int(1, 15) : undefined;
      const sorted = mingoSorted(expected, sort).slice(skip, limit === undefined ? undefined : skip + limit);
      const gotSorted = await collection.find(filter, { sort, skip, ...(limit === undefined ? {} : { limit }) });
      check(JSON.stringify(ids(gotSorted)) === JSON.stringify(ids(sorted)), 'find sorted', {
        filter: JSON.stringify(filter),
        sort,
        skip,
        limit,
        expected: ids(sorted),
        got: ids(gotSorted),
      });
      if (!same) continue;
      check(JSON.stringify(gotSorted.map(canonical)) === JSON.stringify(sorted.map(canonical)), 'documents read back', {
        filter: JSON.stringify(filter),
      });
    }

    for (let u = 0; u < UPDATES_PER_ROUND; u++) {
      const filter = randomFilter(r);
      const update = randomUpdate(r);
      const targets = mingoFind(reference, filter);
      for (const doc of targets) {
        for (const [operator, fields] of Object.entries(update)) {
          // mingo's $pull throws on a missing field; MongoDB leaves the document as it is.
          if (operator === '$pull' && Object.keys(fields).some((key) => doc[key] === undefined)) continue;
          mingoUpdate(doc, { [operator]: fields } as unknown as UpdateExpression);
        }
      }
      const matched = await collection.updateMany(filter, structuredClone(update));
      check(matched === targets.length, 'updateMany matched count', {
        filter: JSON.stringify(filter),
        update: JSON.stringify(update),
      });
      const all = await collection.find({}, { sort: { _id: 1 } });
      const expectedAll = mingoSorted(reference, { _id: 1 });
      const firstDifferent = all.findIndex(
        (doc, i) => JSON.stringify(canonical(doc)) !== JSON.stringify(canonical(expectedAll[i])),
      );
      check(all.length === expectedAll.length && firstDifferent < 0, 'documents after updateMany', {
        filter: JSON.stringify(filter),
        update: JSON.stringify(update),
        expected: JSON.stringify(expectedAll[firstDifferent]),
        got: JSON.stringify(all[firstDifferent]),
      });
      if (r.chance(0.2)) {
        const doomed = randomFilter(r);
        const gone = mingoFind(reference, doomed);
        check((await collection.deleteMany(doomed)) === gone.length, 'deleteMany count', {
          filter: JSON.stringify(doomed),
        });
        for (const doc of gone) reference.splice(reference.indexOf(doc), 1);
        check((await collection.count()) === reference.length, 'count after deleteMany', {});
      }
    }

    // Again after the updates and deletes: what element indexes and the text index hold follows each rewrite.
    for (let q = 0; q < QUERIES_PER_ROUND / 2; q++) {
      const filter = randomFilter(r);
      const expected = mingoFind(reference, filter);
      const got = await collection.find(filter);
      check(JSON.stringify(ids(got).sort()) === JSON.stringify(ids(expected).sort()), 'find after updates (as a set)', {
        filter: String(JSON.stringify(filter)),
        expected: ids(expected),
        got: ids(got),
      });
      check((await collection.count(filter)) === expected.length, 'count after updates', {
        filter: JSON.stringify(filter),
      });
    }
    // Every value on the array fields, so a stale element row (a value pulled out) would show.
    for (const path of ['tags', 'm']) {
      for (const value of [...STRINGS, ...NUMBERS, true, null]) {
        const filter = { [path]: value };
        check(
          (await collection.count(filter)) === mingoFind(reference, filter).length,
          'count of one value after updates',
          { filter: JSON.stringify(filter) },
        );
      }
    }
  }
  t.equal(mismatches, 0, `${cases} cases, ${mismatches} differences from mingo`);
  t.ok(cases > 5000, `thousands of cases (${cases} in ${Date.now() - started} ms)`);
});

/** A document with its keys sorted at every level, so key order does not count. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
