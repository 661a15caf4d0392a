import type { AssetDeleted, AssetUsageCleared, AssetUsageRecorded } from '../../contracts/assets/events.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { defineHandlerProjection, type Projected } from '../projection.js';
import { ASSET_COLLECTIONS } from './collections.js';

export interface AssetUsageDoc {
  _id: number;
  id: number;
  asset_id: number;
  context_type: string;
  context_id: number | null;
  user_id: number | null;
  created_at: string;
  [key: string]: unknown;
}

/** An asset's usage records are looked up by the asset (the SQLite store indexes it). */
const USAGE_INDEXES = { indexes: ['asset_id'] } as const;

export const assetUsage = (d: DocumentStore) => d.collection<AssetUsageDoc>(ASSET_COLLECTIONS.usage, USAGE_INDEXES);

/** Usage records, one document each; clearing or deleting the asset removes all its records (the escape hatch). */
export const assetUsageProjection = defineHandlerProjection({
  name: 'asset-usage',
  handles: ['AssetUsageRecorded', 'AssetUsageCleared', 'AssetDeleted'],
  async handle(event: Projected<AssetUsageRecorded | AssetUsageCleared | AssetDeleted>, documents) {
    const usage = assetUsage(documents);
    switch (event.type) {
      case 'AssetUsageRecorded': {
        const { id, usage_id, context_type, context_id } = event.data;
        await usage.put({
          _id: usage_id,
          id: usage_id,
          asset_id: id,
          context_type,
          context_id,
          user_id: event.metadata.userId,
          created_at: event.metadata.at,
        });
        return;
      }
      case 'AssetUsageCleared':
      case 'AssetDeleted':
        await usage.deleteMany({ asset_id: event.data.id });
        return;
    }
  },
});
