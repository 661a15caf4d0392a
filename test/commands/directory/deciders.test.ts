import t from 'tap';
import { foldEvents, type Decider, type DomainCommand } from '../../../commands/decider.js';
import { type DomainEvent } from '../../../contracts/domain-event.js';
import { decideClick } from '../../../commands/directory/click-decider.js';
import { databaseDecider } from '../../../commands/directory/database-decider.js';
import type { DatabaseFields } from '../../../contracts/directory/events.js';
import { libraryDecider } from '../../../commands/directory/library-decider.js';
import { listDecider } from '../../../commands/directory/list-decider.js';
import { subjectDecider } from '../../../commands/directory/term-decider.js';
import { tokenDecider } from '../../../commands/directory/token-decider.js';
import { normalizeOrigin } from '../../../infra/net/origin.js';
import { sha256 } from '../../../infra/crypto/secret-hash.js';

/** given(events).when(command) -> the new events, or the error thrown. */
function given<S, C extends DomainCommand, E extends DomainEvent>(decider: Decider<S, C, E>, events: E[]) {
  return {
    when(command: C): E[] | Error {
      try {
        return decider.decide(command, foldEvents(decider, events));
      } catch (error) {
        return error as Error;
      }
    },
  };
}

const status = (result: unknown) =>
  result instanceof Error ? (result as Error & { statusCode?: number }).statusCode : 'ok';

const JSTOR: DatabaseFields = {
  name: 'JSTOR',
  description: 'Journals',
  url: 'https://www.jstor.org/',
  subjects: ['history', 'history'],
  types: ['journals'],
  access: 'subscription',
  audience: ['undergraduate'],
  featured: true,
  hidden: false,
  proxied: true,
};

t.test('library: configure, defaults, partial changes, rules', async (t) => {
  const first = given(libraryDecider, []).when({
    type: 'ConfigureLibrary',
    data: { name: 'City Library', plan: 'plus' },
  });
  t.same(first, [
    {
      type: 'LibraryConfigured',
      data: { name: 'City Library', plan: 'plus', brand_color: '#0b5394', proxy_prefix: '' },
    },
  ]);
  const configured = first as Exclude<typeof first, Error>;
  t.same(
    given(libraryDecider, configured).when({ type: 'ConfigureLibrary', data: { plan: 'basic' } }),
    [
      {
        type: 'LibraryConfigured',
        data: { name: 'City Library', plan: 'basic', brand_color: '#0b5394', proxy_prefix: '' },
      },
    ],
    'keys absent keep their value',
  );
  t.equal(
    status(given(libraryDecider, configured).when({ type: 'ConfigureLibrary', data: { plan: 'gold' as 'plus' } })),
    422,
  );
  t.equal(
    status(given(libraryDecider, configured).when({ type: 'ConfigureLibrary', data: { brand_color: 'blue' } })),
    422,
  );
  t.equal(
    status(given(libraryDecider, configured).when({ type: 'ConfigureLibrary', data: { proxy_prefix: 'not a url' } })),
    422,
  );
  t.equal(
    status(given(libraryDecider, []).when({ type: 'ConfigureLibrary', data: { plan: 'plus' } })),
    422,
    'a name is needed',
  );
});

t.test('tokens: issued with canonical origins, revoked once', async (t) => {
  const hash = sha256('secret-token');
  const issued = given(tokenDecider, []).when({
    type: 'IssueToken',
    data: {
      id: 7,
      token_hash: hash,
      allowed_origins: ['https://Library.Example.edu/', 'https://library.example.edu'],
      label: 'web',
    },
  });
  t.same(issued, [
    {
      type: 'DirectoryTokenIssued',
      data: { id: 7, token_hash: hash, allowed_origins: ['https://library.example.edu'], label: 'web' },
    },
  ]);
  const events = issued as Exclude<typeof issued, Error>;
  t.equal(
    status(
      given(tokenDecider, events).when({
        type: 'IssueToken',
        data: { id: 7, token_hash: hash, allowed_origins: [], label: '' },
      }),
    ),
    409,
  );
  t.same(given(tokenDecider, events).when({ type: 'RevokeToken', data: {} }), [
    { type: 'DirectoryTokenRevoked', data: { id: 7 } },
  ]);
  t.equal(
    status(
      given(tokenDecider, [...events, { type: 'DirectoryTokenRevoked', data: { id: 7 } }]).when({
        type: 'RevokeToken',
        data: {},
      }),
    ),
    404,
  );
  t.equal(status(given(tokenDecider, []).when({ type: 'RevokeToken', data: {} })), 404);
  t.equal(
    status(
      given(tokenDecider, []).when({
        type: 'IssueToken',
        data: { id: 1, token_hash: hash, allowed_origins: ['ftp://x.example'], label: '' },
      }),
    ),
    422,
  );
  t.equal(
    status(
      given(tokenDecider, []).when({
        type: 'IssueToken',
        data: { id: 1, token_hash: 'plain', allowed_origins: [], label: '' },
      }),
    ),
    422,
    'only a hash is stored',
  );
});

t.test('origins', async (t) => {
  t.equal(normalizeOrigin('https://Library.example.edu/'), 'https://library.example.edu');
  t.equal(normalizeOrigin('https://library.example.edu:443'), 'https://library.example.edu');
  t.equal(normalizeOrigin('http://localhost:8080'), 'http://localhost:8080');
  t.equal(normalizeOrigin('https://library.example.edu/path'), null);
  t.equal(normalizeOrigin('library.example.edu'), null);
  t.equal(normalizeOrigin('null'), null);
});

t.test('databases: add, update, rules', async (t) => {
  const added = given(databaseDecider, []).when({ type: 'AddDatabase', data: { handle: 'jstor', fields: JSTOR } });
  t.same(
    added,
    [{ type: 'DatabaseAdded', data: { handle: 'jstor', fields: { ...JSTOR, subjects: ['history'] } } }],
    'duplicates dropped',
  );
  const events = added as Exclude<typeof added, Error>;
  t.equal(
    status(given(databaseDecider, events).when({ type: 'AddDatabase', data: { handle: 'jstor', fields: JSTOR } })),
    409,
  );
  const hidden = given(databaseDecider, events).when({ type: 'UpdateDatabase', data: { patch: { hidden: true } } });
  t.same(hidden, [
    {
      type: 'DatabaseUpdated',
      data: { handle: 'jstor', fields: { ...JSTOR, subjects: ['history'], hidden: true }, changed: ['hidden'] },
    },
  ]);
  t.same(
    given(databaseDecider, events).when({ type: 'UpdateDatabase', data: { patch: { hidden: false } } }),
    [],
    'no change, no event',
  );
  t.equal(status(given(databaseDecider, []).when({ type: 'UpdateDatabase', data: { patch: { hidden: true } } })), 404);
  for (const [field, value] of [
    ['url', 'javascript:alert(1)'],
    ['access', 'free'],
    ['name', ' '],
    ['subjects', ['bad handle']],
  ] as const) {
    const result = given(databaseDecider, []).when({
      type: 'AddDatabase',
      data: { handle: 'x', fields: { ...JSTOR, [field]: value } },
    });
    t.equal(status(result), 422, `${field} ${JSON.stringify(value)} is refused`);
  }
  t.equal(
    status(given(databaseDecider, []).when({ type: 'AddDatabase', data: { handle: 'has space', fields: JSTOR } })),
    422,
  );
});

t.test('subjects and lists are defined once; lists keep order, no duplicates', async (t) => {
  const subject = given(subjectDecider, []).when({ type: 'DefineTerm', data: { handle: 'history', name: 'History' } });
  t.same(subject, [{ type: 'SubjectDefined', data: { handle: 'history', name: 'History' } }]);
  t.equal(
    status(
      given(subjectDecider, subject as Exclude<typeof subject, Error>).when({
        type: 'DefineTerm',
        data: { handle: 'history', name: 'H' },
      }),
    ),
    409,
  );
  const list = given(listDecider, []).when({
    type: 'DefineList',
    data: { handle: 'starter', name: 'Start', databases: ['b', 'a'] },
  });
  t.same(list, [{ type: 'LibraryListDefined', data: { handle: 'starter', name: 'Start', databases: ['b', 'a'] } }]);
  t.equal(
    status(
      given(listDecider, []).when({ type: 'DefineList', data: { handle: 'x', name: 'X', databases: ['a', 'a'] } }),
    ),
    422,
  );
});

t.test('clicks: the event carries the clock time', async (t) => {
  t.same(decideClick({ type: 'RecordClick', data: { handle: 'jstor', at: new Date('2026-03-01T10:00:00Z') } }), [
    { type: 'DatabaseLinkClicked', data: { handle: 'jstor', clicked_at: '2026-03-01T10:00:00.000Z' } },
  ]);
});
