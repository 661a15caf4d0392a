import type { DocumentStore } from '../../infra/document-store/port.js';
import type { Embedder } from '../../infra/embedder/port.js';
import type { VectorIndex } from '../../infra/vector-index/port.js';
import type { ResourceRef } from '../../projections/chatbot/index-jobs.js';
import { chunkText } from './chunker.js';
import { extractResource } from './extract.js';

export interface IndexingDeps {
  documents: DocumentStore;
  embedder: Embedder;
  vectorIndex: VectorIndex;
}

/**
 * Brings one resource's chunks in line with what the public site shows of it now: replaced
 * when public, removed otherwise. Chunks are embedded with the title in front, since a chunk
 * out of its resource rarely names what it is about.
 */
export async function indexResource(deps: IndexingDeps, ref: ResourceRef, now: Date): Promise<'indexed' | 'removed'> {
  const resource = await extractResource(deps.documents, ref, now);
  if (!resource) {
    await deps.vectorIndex.remove(ref.type, ref.id);
    return 'removed';
  }
  const texts = chunkText(resource.text);
  if (texts.length === 0) texts.push(resource.title);
  const vectors = await deps.embedder.embed(texts.map((text) => `${resource.title}\n${text}`), 'document');
  await deps.vectorIndex.replace(
    resource,
    texts.map((text, index) => ({ text, vector: vectors[index] })),
  );
  return 'indexed';
}
