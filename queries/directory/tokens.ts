import type { DocumentStore } from '../../infra/document-store/port.js';
import { tokenDocs, type TokenDoc } from '../../contracts/directory/documents.js';
import type { TokenFields } from '../../contracts/directory/fields.js';

/** The token with this SHA-256 hash, if it exists and is not revoked. */
export function findActiveToken(documents: DocumentStore, tokenHash: string): Promise<TokenDoc | null> {
  return tokenDocs(documents).findOne({ token_hash: tokenHash, revoked_at: null });
}

export function findToken(documents: DocumentStore, id: number): Promise<TokenDoc | null> {
  return tokenDocs(documents).findOne({ _id: id });
}

/** What an admin is shown of a token: its fields, id and times (never its hash). */
export interface TokenSummary extends Pick<TokenFields, 'label' | 'allowed_origins'> {
  id: number;
  created_at: string;
  revoked_at: string | null;
}

/** What an admin may see of a token: never its hash. */
export function summarizeToken(doc: TokenDoc): TokenSummary {
  return {
    id: doc.id,
    label: doc.label,
    allowed_origins: [...doc.allowed_origins],
    created_at: doc.created_at,
    revoked_at: doc.revoked_at,
  };
}

export async function listTokens(documents: DocumentStore, includeRevoked: boolean): Promise<TokenSummary[]> {
  const docs = await tokenDocs(documents).find(includeRevoked ? {} : { revoked_at: null }, { sort: { id: 1 } });
  return docs.map(summarizeToken);
}
