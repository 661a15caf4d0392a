import type { UserEvent } from '../../commands/users/events.js';
import { API_KEYS, USERS, type ApiKeyDoc, type UserDoc } from '../../queries/users.js';
import { defineProjection } from '../projection.js';

/** Users and their API keys, for authentication and author names. */
export const usersProjection = defineProjection({
  name: 'users',
  handles: ['UserRegistered', 'ApiKeyCreated', 'ApiKeyRevoked'],
  async apply(stored, documents) {
    const event = { type: stored.type, data: stored.data } as UserEvent;
    switch (event.type) {
      case 'UserRegistered':
        await documents.collection<UserDoc>(USERS).put({ _id: event.data.id, ...event.data });
        return;
      case 'ApiKeyCreated':
        await documents.collection<ApiKeyDoc>(API_KEYS).put({
          _id: event.data.identity,
          identity: event.data.identity,
          userId: event.data.userId,
          credentialHash: event.data.credentialHash,
          label: event.data.label,
        });
        return;
      case 'ApiKeyRevoked':
        await documents.collection<ApiKeyDoc>(API_KEYS).deleteOne({ _id: event.data.identity });
        return;
    }
  },
});
