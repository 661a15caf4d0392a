import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contentTerms } from '../../infra/embedder/tokens.js';

/** Where the evaluation set's parts are, one JSON file per kind of record. */
export const SET_DIR = fileURLToPath(new URL('./set/', import.meta.url));

export const EvaluationRecord = Type.Object(
  {
    /** Unique across the set: the part's name, a dash, a number. */
    key: Type.String({ pattern: '^[a-z]+-[0-9]{3}$' }),
    /** Which kind of resource it is imported as. */
    type: Type.Union([
      Type.Literal('item'),
      Type.Literal('media'),
      Type.Literal('blog_post'),
      Type.Literal('site_page'),
    ]),
    title: Type.String({ minLength: 1 }),
    text: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
);
export type EvaluationRecord = Static<typeof EvaluationRecord>;

export const EvaluationQuestion = Type.Object(
  {
    question: Type.String({ minLength: 1 }),
    /** The key of the one record that answers it. */
    answer: Type.String(),
    /** Records close to the question's topic that do not answer it. */
    nearMisses: Type.Array(Type.String(), { minItems: 2 }),
  },
  { additionalProperties: false },
);
export type EvaluationQuestion = Static<typeof EvaluationQuestion>;

export const EvaluationPart = Type.Object(
  { records: Type.Array(EvaluationRecord), questions: Type.Array(EvaluationQuestion) },
  { additionalProperties: false },
);
export type EvaluationPart = Static<typeof EvaluationPart>;

/** One part of the set, checked against its schema (throws with the first error). */
export function readEvaluationSet(path: string): EvaluationPart {
  const data: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (!Value.Check(EvaluationPart, data)) {
    const [first] = Value.Errors(EvaluationPart, data);
    throw new Error(`${first?.path ?? ''} ${first?.message ?? 'does not match the schema'}`);
  }
  return data;
}

/** The set's part files, in order. */
export function evaluationSetFiles(dir = SET_DIR): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => join(dir, name));
}

/**
 * What is wrong with the set (check-set.ts prints it; a test requires none): every question has
 * one right record and at least two near misses, all in its part and none its answer; a record
 * answers one question at most; no question shares a content word (infra/embedder/tokens.ts:
 * stop words dropped, light stemming) with its record's title or text; keys are unique.
 */
export function checkEvaluationSet(paths = evaluationSetFiles()): {
  problems: string[];
  records: number;
  questions: number;
  parts: number;
} {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  let records = 0;
  let questions = 0;
  for (const path of paths) {
    let part: EvaluationPart;
    try {
      part = readEvaluationSet(path);
    } catch (error) {
      problems.push(`${path}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    const byKey = new Map(part.records.map((record) => [record.key, record]));
    for (const record of part.records) {
      const other = seen.get(record.key);
      if (other) problems.push(`${path}: key ${record.key} also in ${other}`);
      seen.set(record.key, path);
      const length = record.text.split(/\s+/).length;
      if (length < 25) problems.push(`${path}: ${record.key}'s text has ${length} words (at least 25)`);
    }
    const answered = new Set<string>();
    for (const q of part.questions) {
      const record = byKey.get(q.answer);
      if (!record) {
        problems.push(`${path}: "${q.question}" answers with ${q.answer}, not in this file`);
        continue;
      }
      if (answered.has(q.answer)) problems.push(`${path}: ${q.answer} answers two questions`);
      answered.add(q.answer);
      const misses = new Set(q.nearMisses);
      if (misses.size < 2) problems.push(`${path}: "${q.question}" has ${misses.size} near misses (at least 2)`);
      for (const miss of misses) {
        if (miss === q.answer) problems.push(`${path}: "${q.question}" names its answer as a near miss`);
        else if (!byKey.has(miss)) problems.push(`${path}: "${q.question}"'s near miss ${miss} is not in this file`);
      }
      const recordTerms = new Set(contentTerms(`${record.title} ${record.text}`));
      const shared = [...new Set(contentTerms(q.question))].filter((term) => recordTerms.has(term));
      if (shared.length > 0)
        problems.push(`${path}: "${q.question}" shares ${shared.map((s) => `"${s}"`).join(', ')} with ${q.answer}`);
    }
    records += part.records.length;
    questions += part.questions.length;
  }
  return { problems, records, questions, parts: paths.length };
}
