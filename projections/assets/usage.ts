import type { AssetDeleted, AssetUsageCleared, AssetUsageRecorded } from '../../contracts/assets/events.js';
import { defineHandlerProjection, type Projected } from '../projection.js';
import { assetUsage } from '../../contracts/assets/documents.js';

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
