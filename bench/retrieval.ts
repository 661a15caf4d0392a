import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_SENTENCE_MODEL, type SentenceModelSpec } from '../infra/embedder/sentence-model/model-files.js';
import type { BenchOptions } from './options.js';
import { ROOT } from './processes.js';
import { figure, type BenchResult, type Figure } from './report.js';
import {
  DEFAULT_WEIGHTS,
  Evaluation,
  loadEvaluationSet,
  MODEL_ALONE,
  scores,
  WORD_WEIGHT_SWEEP,
  WORDS_ALONE,
  type Scores,
  type SetQuestion,
  type Weights,
} from './retrieval/evaluate.js';

/**
 * Other models to compare with the default when their files are in models/candidates/ (made by
 * `bash models/extract.sh ARTIFACT VERSION candidates/NAME`; not committed): their cards' pooling
 * and prefixes.
 */
const CANDIDATES: Omit<SentenceModelSpec, 'dir' | 'sha256'>[] = [
  { name: 'e5-small-v2-q', pooling: 'mean', queryPrefix: 'query: ', documentPrefix: 'passage: ', maxTokens: 512 },
  {
    name: 'bge-small-en-v15-q',
    pooling: 'cls',
    queryPrefix: 'Represent this sentence for searching relevant passages: ',
    documentPrefix: '',
    maxTokens: 512,
  },
];

function candidates(): SentenceModelSpec[] {
  return CANDIDATES.flatMap((candidate) => {
    const dir = join(ROOT, 'models', 'candidates', candidate.name);
    return existsSync(join(dir, 'model.onnx')) ? [{ ...candidate, dir, sha256: { model: '', tokenizer: '' } }] : [];
  });
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

/** Questions nothing in the set answers (off the subject, or things the collection does not hold). */
function readUnanswerable(): string[] {
  const file: unknown = JSON.parse(readFileSync(join(ROOT, 'bench', 'retrieval', 'unanswerable.json'), 'utf8'));
  const questions = typeof file === 'object' && file !== null && 'questions' in file ? file.questions : null;
  if (!Array.isArray(questions) || !questions.every((q): q is string => typeof q === 'string'))
    throw new Error('bench/retrieval/unanswerable.json: { "questions": [string, ...] } expected');
  return questions;
}

function line(label: string, s: Scores): string {
  return `${label.padEnd(44)} recall@1 ${s.recallAt1.toFixed(3)}  recall@5 ${s.recallAt5.toFixed(3)}  MRR ${s.mrr.toFixed(3)}  (${s.questions} questions)`;
}

interface ModelFigures {
  model: string;
  heldOut: Record<'words' | 'model' | 'hybrid' | 'tuned', Scores>;
  tuned: Weights;
}

/** One model's figures: words alone, model alone, the default hybrid, and the hybrid with the words' weight tuned on the other half. */
async function evaluateModel(spec: SentenceModelSpec): Promise<ModelFigures> {
  const set = loadEvaluationSet();
  const evaluation = await Evaluation.open(set, { spec });
  try {
    const heldOut = set.questions.filter((q) => q.heldOut);
    const tuning = set.questions.filter((q) => !q.heldOut);
    const on = async (weights: Weights, questions: SetQuestion[]) => scores(await evaluation.ranks(weights, questions));
    let tuned: Weights = DEFAULT_WEIGHTS;
    let best = -1;
    for (const words of WORD_WEIGHT_SWEEP) {
      const weights = { meaning: 1, words };
      const s = await on(weights, tuning);
      console.log(line(`  tuning half, words' weight ${words}`, s));
      // MRR orders the sweep: it moves with every rank, where recall@1 ties often.
      if (s.mrr > best) [best, tuned] = [s.mrr, weights];
    }
    const figures: ModelFigures = {
      model: evaluation.model,
      tuned,
      heldOut: {
        words: await on(WORDS_ALONE, heldOut),
        model: await on(MODEL_ALONE, heldOut),
        hybrid: await on(DEFAULT_WEIGHTS, heldOut),
        tuned: await on(tuned, heldOut),
      },
    };
    console.log(`${spec.name}, held-out half:`);
    console.log(line('  words alone', figures.heldOut.words));
    console.log(line('  model alone', figures.heldOut.model));
    console.log(
      line(`  hybrid as shipped (${DEFAULT_WEIGHTS.meaning}/${DEFAULT_WEIGHTS.words})`, figures.heldOut.hybrid),
    );
    console.log(line(`  hybrid tuned on the other half (1/${tuned.words})`, figures.heldOut.tuned));
    return figures;
  } finally {
    await evaluation.close();
  }
}

/**
 * The chat on the set (every question, answerable all) and on bench/retrieval/unanswerable.json
 * (questions the collection does not answer): how often its first citation is the record asked
 * for, how often it answers, and how often it says it found no answer to what it cannot answer.
 */
async function chatFigures(
  spec: SentenceModelSpec,
): Promise<{ rightFirst: number; answered: number; refused: number }> {
  const set = loadEvaluationSet();
  const evaluation = await Evaluation.open(set, { spec });
  try {
    const paths = new Map(set.records.map((record) => [record.key, record.path]));
    const cited = await evaluation.citations(
      DEFAULT_WEIGHTS,
      set.questions.map((q) => q.question),
    );
    const unanswered = await evaluation.citations(DEFAULT_WEIGHTS, readUnanswerable());
    const result = {
      rightFirst: cited.filter((urls, i) => urls[0] === paths.get(set.questions[i].answer)).length / cited.length,
      answered: cited.filter((urls) => urls.length > 0).length / cited.length,
      refused: unanswered.filter((urls) => urls.length === 0).length / unanswered.length,
    };
    console.log(
      `chat: first citation right ${result.rightFirst.toFixed(3)}, answered ${result.answered.toFixed(3)}, unanswerable refused ${result.refused.toFixed(3)}`,
    );
    return result;
  } finally {
    await evaluation.close();
  }
}

function scoreFigures(prefix: string, s: Scores, targets = false): Figure[] {
  return [
    figure(`${prefix} recall@1`, round3(s.recallAt1), 'ratio', targets ? { target: { op: '>=', value: 0.9 } } : {}),
    figure(`${prefix} recall@5`, round3(s.recallAt5), 'ratio', targets ? { target: { op: '>=', value: 0.98 } } : {}),
    figure(`${prefix} MRR`, round3(s.mrr), 'ratio'),
  ];
}

/**
 * Retrieval quality on bench/retrieval/set (questions sharing no content word with the record
 * they mean, each with two near misses), on the held-out half: words alone, the model alone,
 * the hybrid as shipped (the targets) and the words' weight tuned on the other half; then each
 * candidate model in models/candidates/ the same way.
 */
export async function retrievalBenchmark(_options: BenchOptions): Promise<BenchResult> {
  const set = loadEvaluationSet();
  const shipped = await evaluateModel(DEFAULT_SENTENCE_MODEL);
  const figures: Figure[] = [
    ...scoreFigures('words alone', shipped.heldOut.words),
    ...scoreFigures('model alone', shipped.heldOut.model),
    ...scoreFigures('hybrid as shipped', shipped.heldOut.hybrid, true),
    ...scoreFigures(`hybrid, words' weight tuned (${shipped.tuned.words})`, shipped.heldOut.tuned),
  ];
  const chat = await chatFigures(DEFAULT_SENTENCE_MODEL);
  figures.push(
    figure('chat: first citation is the right record (all 300)', round3(chat.rightFirst), 'ratio'),
    figure('chat: answered (all 300)', round3(chat.answered), 'ratio'),
    figure('chat: unanswerable questions refused', round3(chat.refused), 'ratio'),
  );
  for (const spec of candidates()) {
    const other = await evaluateModel(spec);
    figures.push(
      ...scoreFigures(`${spec.name}: model alone`, other.heldOut.model),
      ...scoreFigures(`${spec.name}: hybrid tuned (${other.tuned.words})`, other.heldOut.tuned),
    );
  }
  return {
    name: 'retrieval',
    title: 'chatbot retrieval quality on the held-out questions',
    status: 'ran',
    setup: {
      records: set.records.length,
      questions: set.questions.length,
      heldOut: set.questions.filter((q) => q.heldOut).length,
      model: shipped.model,
    },
    figures,
  };
}
