import type { DirectoryTokenIssued, DirectoryTokenRevoked } from '../../commands/directory/events.js';
import { tokenDocs } from '../../queries/directory/documents.js';
import { defineProjection } from '../projection.js';

/** Directory API tokens by id, with their hash for lookups; a revoked token keeps its record. */
export const tokensProjection = defineProjection({
  name: 'directory-tokens',
  handles: ['DirectoryTokenIssued', 'DirectoryTokenRevoked'],
  async apply(stored, documents) {
    const event = { type: stored.type, data: stored.data } as DirectoryTokenIssued | DirectoryTokenRevoked;
    const tokens = tokenDocs(documents);
    switch (event.type) {
      case 'DirectoryTokenIssued':
        await tokens.put({ ...event.data, _id: event.data.id, created_at: stored.metadata.at, revoked_at: null });
        return;
      case 'DirectoryTokenRevoked': {
        const token = await tokens.findOne({ _id: event.data.id });
        if (token) await tokens.put({ ...token, revoked_at: token.revoked_at ?? stored.metadata.at });
        return;
      }
    }
  },
});
