import type { AssetEvent } from '../../commands/assets/events.js';
import { assetUsage } from '../../queries/assets/documents.js';
import { defineProjection } from '../projection.js';

/** Usage records, one document each; clearing or deleting the asset removes its records. */
export const assetUsageProjection = defineProjection({
  name: 'asset-usage',
  handles: ['AssetUsageRecorded', 'AssetUsageCleared', 'AssetDeleted'],
  async apply(stored, documents) {
    const event = { type: stored.type, data: stored.data } as AssetEvent;
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
          user_id: stored.metadata.userId,
          created_at: stored.metadata.at,
        });
        return;
      }
      case 'AssetUsageCleared':
      case 'AssetDeleted':
        await usage.deleteMany({ asset_id: event.data.id });
        return;
      default:
        return;
    }
  },
});
