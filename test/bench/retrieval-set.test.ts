import t from 'tap';
import { checkEvaluationSet } from '../../bench/retrieval/set.js';

t.test(
  'the retrieval evaluation set keeps its rules: no word in common with the answer, two near misses each',
  async (t) => {
    const { problems, records, questions } = checkEvaluationSet();
    t.same(problems, [], 'bench/retrieval/check-set.ts finds nothing wrong');
    t.ok(records >= 1000, `at least 1,000 records (${records})`);
    t.ok(questions >= 300, `at least 300 questions (${questions})`);
  },
);
