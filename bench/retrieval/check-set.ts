/**
 * Checks the retrieval evaluation set (bench/retrieval/set/*.json): every question has one
 * right record and at least two near misses, all present; no question shares a content word
 * (infra/embedder/tokens.ts: stop words dropped, light stemming) with its record's title or
 * text; keys are unique across files. Prints what is wrong and exits 1, else the counts.
 *
 *   npx tsx bench/retrieval/check-set.ts [file ...]
 */
import { checkEvaluationSet } from './set.js';

const files = process.argv.slice(2);
const { problems, records, questions, parts } = checkEvaluationSet(files.length > 0 ? files : undefined);
if (problems.length > 0) {
  for (const problem of problems) console.log(problem);
  console.log(`${problems.length} problem(s)`);
  process.exit(1);
}
console.log(`${parts} file(s): ${records} records, ${questions} questions, no problem`);
