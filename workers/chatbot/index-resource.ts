import type { DocumentStore } from '../../infra/document-store/port.js';
import type { Embedder } from '../../infra/embedder/port.js';
import type { IndexedResource, VectorIndex } from '../../infra/vector-index/port.js';
import type { ResourceRef } from '../../contracts/chatbot/documents.js';
import { chunkText } from './chunker.js';
import { extractResource } from './extract.js';

export interface IndexingDeps {
  documents: DocumentStore;
  /** `cachedOnly` (the embedding cache) lets a resource whose text is known skip the model. */
  embedder: Embedder & { cachedOnly?(texts: string[], purpose: 'document'): Float32Array[] | null };
  vectorIndex: VectorIndex;
}

/**
 * - indexed: the resource's chunks hold the model's vectors;
 * - provisional: they hold stand-in vectors (its words), and the model's are still to come;
 * - superseded: the resource changed while the model read it, so nothing was written (the
 *   change's own job indexes the new text);
 * - removed: the public site does not show it, so the index does not hold it.
 */
export type IndexOutcome = 'indexed' | 'provisional' | 'superseded' | 'removed';

export interface IndexOptions {
  /**
   * When the embedder has stand-in vectors and the cache lacks the real ones, index the
   * stand-ins at once and answer 'provisional' rather than wait for the model: the index job
   * does this, so that a resource is searchable by its words as soon as it changes.
   */
  provisionalFirst?: boolean;
}

interface Plan {
  resource: IndexedResource;
  chunks: string[];
  /** What is embedded for each chunk: the title in front, since a chunk out of its resource rarely names what it is about. */
  inputs: string[];
}

async function planFor(documents: DocumentStore, ref: ResourceRef, now: Date): Promise<Plan | null> {
  const resource = await extractResource(documents, ref, now);
  if (!resource) return null;
  const chunks = chunkText(resource.text);
  if (chunks.length === 0) chunks.push(resource.title);
  return { resource, chunks, inputs: chunks.map((text) => `${resource.title}\n${text}`) };
}

function sameInputs(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((input, index) => input === b[index]);
}

/** Brings one resource's chunks in line with what the public site shows of it now: replaced when public, removed otherwise. */
export async function indexResource(
  deps: IndexingDeps,
  ref: ResourceRef,
  now: Date,
  options: IndexOptions = {},
): Promise<IndexOutcome> {
  const plan = await planFor(deps.documents, ref, now);
  if (!plan) {
    await deps.vectorIndex.remove(ref.type, ref.id);
    return 'removed';
  }
  // Stand-in vectors live in the model's space (its word part), so they go under its name too.
  const write = (vectors: Float32Array[]) =>
    deps.vectorIndex.replace(
      plan.resource,
      plan.chunks.map((text, index) => ({ text, vector: vectors[index] })),
      deps.embedder.model,
    );
  const cached = deps.embedder.cachedOnly?.(plan.inputs, 'document') ?? null;
  if (cached) {
    await write(cached);
    return 'indexed';
  }
  if (options.provisionalFirst && deps.embedder.provisional) {
    await write(deps.embedder.provisional(plan.inputs));
    return 'provisional';
  }
  const vectors = await deps.embedder.embed(plan.inputs, 'document');
  // The model may take seconds: should the resource have changed meanwhile, these vectors are stale.
  const current = await planFor(deps.documents, ref, now);
  if (!current || !sameInputs(current.inputs, plan.inputs)) return 'superseded';
  await write(vectors);
  return 'indexed';
}
