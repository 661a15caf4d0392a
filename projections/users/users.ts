import type { UserEvent } from '../../contracts/users/events.js';
import { API_KEYS, USERS, type ApiKeyDoc, type UserDoc } from '../../contracts/users/documents.js';
import { defineHandlerProjection, type Projected } from '../projection.js';

/** Users and their API keys, for authentication and author names: two collections, so the escape hatch. */
export const usersProjection = defineHandlerProjection({
  name: 'users',
  handles: ['UserRegistered', 'ApiKeyCreated', 'ApiKeyRevoked'],
  async handle(event: Projected<UserEvent>, documents) {
    switch (event.type) {
      case 'UserRegistered':
        await documents.collection<UserDoc>(USERS).put({ _id: event.data.id, ...event.data });
        return;
      case 'ApiKeyCreated':
        await documents.collection<ApiKeyDoc>(API_KEYS).put({ _id: event.data.identity, ...event.data });
        return;
      case 'ApiKeyRevoked':
        await documents.collection<ApiKeyDoc>(API_KEYS).deleteOne({ _id: event.data.identity });
        return;
    }
  },
});
