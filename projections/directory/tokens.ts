import type { DirectoryTokenIssued, DirectoryTokenRevoked } from '../../contracts/directory/events.js';
import { copyWith } from '../../infra/objects/copy-with.js';
import { defineProjection, type Projected } from '../projection.js';
import { tokenDocs, type TokenDoc } from '../../contracts/directory/documents.js';

/** Directory API tokens by id, with their hash for lookups; a revoked token keeps its record. */
export const tokensProjection = defineProjection({
  name: 'directory-tokens',
  handles: ['DirectoryTokenIssued', 'DirectoryTokenRevoked'],
  collection: tokenDocs,
  evolve(token: TokenDoc | null, event: Projected<DirectoryTokenIssued | DirectoryTokenRevoked>): TokenDoc | null {
    const at = event.metadata.at;
    switch (event.type) {
      case 'DirectoryTokenIssued':
        return copyWith(event.data, { _id: event.data.id, created_at: at, revoked_at: null });
      case 'DirectoryTokenRevoked':
        return token && copyWith(token, { revoked_at: token.revoked_at ?? at });
    }
  },
  documentId: (event) => event.data.id,
});
