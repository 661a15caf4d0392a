import type { Embedder } from '../embedder/port.js';
import type { VectorIndex } from './port.js';

/**
 * The models whose chunks the vector index holds besides the embedder's own: after an upgrade
 * to another model, until it has read the collection again, the earlier model's chunks are still
 * searched, with the query vectors the embedder has for them (`legacyQuery`, their words).
 */
export class IndexModels {
  private earlier: readonly string[] = [];

  /** The earlier models a search also asks. */
  get searched(): readonly string[] {
    return this.earlier;
  }

  /**
   * Reads which models the index holds (at the start, and once the collection has been read
   * again): `earlier` are searched from now on; `unsearchable` are models the embedder has no
   * query vectors for (another dimension or kind), whose chunks only a clear can take away.
   */
  async refresh({
    vectorIndex,
    embedder,
  }: {
    vectorIndex: VectorIndex;
    embedder: Embedder;
  }): Promise<{ earlier: string[]; unsearchable: string[] }> {
    const held = Object.keys(await vectorIndex.models()).filter((model) => model !== embedder.model);
    const earlier = held.filter((model) => embedder.legacyQuery?.(model, ['']) != null);
    this.earlier = earlier;
    return { earlier, unsearchable: held.filter((model) => !earlier.includes(model)) };
  }
}
