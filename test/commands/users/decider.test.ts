import t from 'tap';
import { userDecider } from '../../../commands/users/decider.js';
import type { UserEvent } from '../../../contracts/users/events.js';
import { ConflictError, NotFoundError, ValidationError } from '../../../infra/errors.js';
import { deciderSpec } from '../../decider-spec.js';

const spec = deciderSpec(userDecider);
const registered: UserEvent = {
  type: 'UserRegistered',
  data: { id: 7, email: 'ada@example.org', name: 'Ada', role: 'editor', passwordHash: 'h' },
};

t.test('RegisterUser on a new stream registers, lower-casing the email', async (t) => {
  spec
    .given([])
    .when({
      type: 'RegisterUser',
      data: { id: 7, email: 'Ada@Example.org', name: 'Ada', role: 'editor', passwordHash: 'h' },
    })
    .then(t, [registered]);
});

t.test('RegisterUser refuses a second registration, a bad email and an unknown role', async (t) => {
  const data = { id: 7, email: 'ada@example.org', name: 'Ada', role: 'editor' as const, passwordHash: null };
  spec.given([registered]).when({ type: 'RegisterUser', data }).thenThrows(t, ConflictError);
  spec
    .given([])
    .when({ type: 'RegisterUser', data: { ...data, email: 'nope' } })
    .thenThrows(t, ValidationError);
  spec
    .given([])
    .when({ type: 'RegisterUser', data: { ...data, role: 'king' as unknown as 'editor' } })
    .thenThrows(t, ValidationError);
});

t.test('API keys are created once per identity and revoked only when present', async (t) => {
  const created: UserEvent = {
    type: 'ApiKeyCreated',
    data: { userId: 7, identity: 'k1', credentialHash: 'c', label: '' },
  };
  spec
    .given([registered])
    .when({ type: 'CreateApiKey', data: { identity: 'k1', credentialHash: 'c', label: '' } })
    .then(t, [created]);
  spec
    .given([registered, created])
    .when({ type: 'CreateApiKey', data: { identity: 'k1', credentialHash: 'c', label: '' } })
    .thenThrows(t, ConflictError);
  spec
    .given([])
    .when({ type: 'CreateApiKey', data: { identity: 'k1', credentialHash: 'c', label: '' } })
    .thenThrows(t, NotFoundError);
  spec
    .given([registered, created])
    .when({ type: 'RevokeApiKey', data: { identity: 'k1' } })
    .then(t, [{ type: 'ApiKeyRevoked', data: { userId: 7, identity: 'k1' } }]);
  spec
    .given([registered])
    .when({ type: 'RevokeApiKey', data: { identity: 'k1' } })
    .thenThrows(t, NotFoundError);
});
