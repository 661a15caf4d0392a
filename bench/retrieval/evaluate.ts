import { HybridEmbedder, SEMANTIC_WEIGHT, WORD_WEIGHT } from '../../infra/embedder/hybrid.js';
import type { Embedder, EmbedPurpose } from '../../infra/embedder/port.js';
import type { SentenceModelOptions } from '../../infra/embedder/sentence-model/client.js';
import { SENTENCE_DIMENSION } from '../../infra/embedder/sentence-model/protocol.js';
import type { ResourceType } from '../../infra/vector-index/port.js';
import { SqliteVectorIndex } from '../../infra/vector-index/sqlite.js';
import { ExtractiveAnswerer } from '../../infra/answerer/extractive.js';
import { IndexModels } from '../../infra/vector-index/index-models.js';
import { chatResponse, gatherEvidence } from '../../queries/chatbot/chat.js';
import { retrieve } from '../../queries/chatbot/retrieve.js';
import { chunkText } from '../../workers/chatbot/chunker.js';
import {
  evaluationSetFiles,
  readEvaluationSet,
  SET_DIR,
  type EvaluationQuestion,
  type EvaluationRecord,
} from './set.js';

/** A record of the set with the resource it is imported as. */
export interface SetRecord extends EvaluationRecord {
  id: number;
  /** `/item/7`, `/media/3`, ...: how the search's answers name it. */
  path: string;
}

export interface SetQuestion extends EvaluationQuestion {
  /** Every other question of a part is held out: weights are tuned on the rest, figures reported on these. */
  heldOut: boolean;
}

export interface EvaluationSet {
  records: SetRecord[];
  questions: SetQuestion[];
}

/** The set's parts, each record numbered within its resource type (as the fixture imports it), each second question held out. */
export function loadEvaluationSet(dir = SET_DIR): EvaluationSet {
  const records: SetRecord[] = [];
  const questions: SetQuestion[] = [];
  const next = new Map<ResourceType, number>();
  for (const file of evaluationSetFiles(dir)) {
    const part = readEvaluationSet(file);
    for (const record of part.records) {
      const id = (next.get(record.type) ?? 0) + 1;
      next.set(record.type, id);
      records.push({ ...record, id, path: pathOf(record.type, id) });
    }
    part.questions.forEach((question, index) => questions.push({ ...question, heldOut: index % 2 === 1 }));
  }
  return { records, questions };
}

function pathOf(type: ResourceType, id: number): string {
  return type === 'blog_post' ? `/blog/post-${id}` : type === 'site_page' ? `/page/page-${id}` : `/${type}/${id}`;
}

export interface Scores {
  questions: number;
  recallAt1: number;
  recallAt5: number;
  mrr: number;
}

/** Recall@1, recall@5 and MRR (over the first ten) of the answers' places, 1-based, Infinity when absent. */
export function scores(ranks: number[]): Scores {
  const n = ranks.length || 1;
  return {
    questions: ranks.length,
    recallAt1: ranks.filter((rank) => rank === 1).length / n,
    recallAt5: ranks.filter((rank) => rank <= 5).length / n,
    mrr: ranks.reduce((sum, rank) => sum + (rank <= 10 ? 1 / rank : 0), 0) / n,
  };
}

/** The part of a hybrid vector with the model's meaning (first) or the words' features (after), unit length. */
function part(vector: Float32Array, meaning: boolean): Float32Array {
  const slice = meaning ? vector.subarray(0, SENTENCE_DIMENSION) : vector.subarray(SENTENCE_DIMENSION);
  let squares = 0;
  for (const value of slice) squares += value * value;
  const inverse = squares > 0 ? 1 / Math.sqrt(squares) : 0;
  return slice.map((value) => value * inverse);
}

/** Meaning and words weighted as HybridEmbedder weighs them: with (1, 0.5) this is its own vector again. */
function reweighed(vector: Float32Array, weights: Weights): Float32Array {
  const meaning = part(vector, true);
  const words = part(vector, false);
  const out = new Float32Array(vector.length);
  out.set(meaning.map((value) => value * weights.meaning));
  out.set(
    words.map((value) => value * weights.words),
    SENTENCE_DIMENSION,
  );
  let squares = 0;
  for (const value of out) squares += value * value;
  const inverse = squares > 0 ? 1 / Math.sqrt(squares) : 0;
  return out.map((value) => value * inverse);
}

export interface Weights {
  meaning: number;
  words: number;
}

export const WORDS_ALONE: Weights = { meaning: 0, words: 1 };
export const MODEL_ALONE: Weights = { meaning: 1, words: 0 };
export const DEFAULT_WEIGHTS: Weights = { meaning: SEMANTIC_WEIGHT, words: WORD_WEIGHT };

/**
 * The set indexed once with the embedded default's vectors (HybridEmbedder: the model and the
 * words), then searched through `retrieve`, the query path of the chatbot's search and chat,
 * for any weighing of the two parts (recombined from the same vectors, so a sweep embeds each
 * text once).
 */
export class Evaluation {
  private readonly memo = new Map<string, Promise<Float32Array>>();

  private constructor(
    readonly set: EvaluationSet,
    private readonly embedder: HybridEmbedder,
    private readonly documents: Map<SetRecord, { chunks: string[]; vectors: Float32Array[] }>,
  ) {}

  /** Embeds every record's chunks as the index job does (title, newline, chunk). */
  static async open(set: EvaluationSet, options: SentenceModelOptions = {}): Promise<Evaluation> {
    const embedder = new HybridEmbedder(options);
    const documents = new Map<SetRecord, { chunks: string[]; vectors: Float32Array[] }>();
    const plans = set.records.map((record) => {
      const chunks = chunkText(record.text);
      if (chunks.length === 0) chunks.push(record.title);
      return { record, chunks, inputs: chunks.map((chunk) => `${record.title}\n${chunk}`) };
    });
    const vectors = await embedder.embed(
      plans.flatMap((plan) => plan.inputs),
      'document',
    );
    let at = 0;
    for (const plan of plans) {
      documents.set(plan.record, { chunks: plan.chunks, vectors: vectors.slice(at, at + plan.chunks.length) });
      at += plan.chunks.length;
    }
    return new Evaluation(set, embedder, documents);
  }

  get model(): string {
    return this.embedder.model;
  }

  private vector(text: string, purpose: EmbedPurpose): Promise<Float32Array> {
    const key = `${purpose}\u0000${text}`;
    let vector = this.memo.get(key);
    if (!vector) {
      vector = this.embedder.embed([text], purpose).then(([v]) => v);
      this.memo.set(key, vector);
    }
    return vector;
  }

  /** The set in the embedded vector index, vectors weighed as `weights` say, with the query embedder of the same weighing. */
  private async indexed(weights: Weights): Promise<{ embedder: Embedder; vectorIndex: SqliteVectorIndex }> {
    const model = `evaluation-${weights.meaning}-${weights.words}`;
    const vectorIndex = new SqliteVectorIndex();
    for (const [record, { chunks, vectors }] of this.documents)
      await vectorIndex.replace(
        {
          resourceType: record.type,
          resourceId: record.id,
          title: record.title,
          path: record.path,
          siteIds: [1],
          itemSetIds: [],
        },
        chunks.map((text, index) => ({ text, vector: reweighed(vectors[index], weights) })),
        model,
      );
    const embedder: Embedder = {
      model,
      dimension: this.embedder.dimension,
      embed: (texts, purpose) =>
        Promise.all(texts.map(async (text) => reweighed(await this.vector(text, purpose), weights))),
      close: async () => {},
    };
    return { embedder, vectorIndex };
  }

  /** Each question's answer's place among `retrieve`'s resources (Infinity when not among them). */
  async ranks(weights: Weights, questions = this.set.questions): Promise<number[]> {
    const { embedder, vectorIndex } = await this.indexed(weights);
    try {
      const paths = new Map(this.set.records.map((record) => [record.key, record.path]));
      const ranks: number[] = [];
      for (const question of questions) {
        const found = await retrieve({ embedder, vectorIndex }, { text: question.question, filter: {} });
        const at = found.findIndex((resource) => resource.best.path === paths.get(question.answer));
        ranks.push(at < 0 ? Infinity : at + 1);
      }
      return ranks;
    } finally {
      await vectorIndex.close();
    }
  }

  /**
   * The chat's answers to `questions` as POST /chatbot/api/chat gives them on the embedded
   * default (evidence gathered, the extractive answerer with the same vectors, the answer
   * rendered): for each, the paths of the sources it cites, in citation order (none when it
   * says it found no answer).
   */
  async citations(weights: Weights, questions: string[]): Promise<string[][]> {
    const { embedder, vectorIndex } = await this.indexed(weights);
    try {
      const services = {
        embedder,
        vectorIndex,
        indexModels: new IndexModels(),
        reading: { stillReading: async () => false },
      };
      const answerer = new ExtractiveAnswerer(embedder);
      const cited: string[][] = [];
      for (const question of questions) {
        const { retrieved, request } = await gatherEvidence(services, { question, itemSetIds: [] });
        const { sources } = chatResponse(await answerer.answer(request), retrieved);
        cited.push(sources.map((source) => source.url));
      }
      return cited;
    } finally {
      await vectorIndex.close();
    }
  }

  async close(): Promise<void> {
    await this.embedder.close();
  }
}

/** Meaning's weight 1, the words' from none to as much: the sweep tuned on the questions not held out. */
export const WORD_WEIGHT_SWEEP = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1];
