import type { DirectoryTokenIssued, DirectoryTokenRevoked } from '../../contracts/directory/events.js';
import type { DocumentStore } from '../../infra/document-store/port.js';
import { copyWith } from '../../infra/objects/copy-with.js';
import { defineProjection, type Projected } from '../projection.js';
import { DIRECTORY_COLLECTIONS } from './collections.js';

export interface TokenDoc {
  _id: number;
  id: number;
  token_hash: string;
  allowed_origins: string[];
  label: string;
  created_at: string;
  revoked_at: string | null;
  [key: string]: unknown;
}

/** A token is looked up by its hash (the SQLite store indexes it). */
const TOKEN_INDEXES = { indexes: [['token_hash', 'revoked_at']] } as const;

export const tokenDocs = (d: DocumentStore) => d.collection<TokenDoc>(DIRECTORY_COLLECTIONS.tokens, TOKEN_INDEXES);

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
