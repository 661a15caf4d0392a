import { join } from 'node:path';
import type { CommandContext } from '../../commands/command-context.js';
import { FixedClock } from '../../infra/clock/port.js';
import { scryptHasher } from '../../infra/crypto/secret-hash.js';
import { MemoryDocumentStore } from '../../infra/document-store/memory.js';
import { SqliteEventStore } from '../../infra/event-store/sqlite.js';
import { TEST_SECRET_HASH_COST } from '../test-config.js';

/** A command context over a SQLite log in the test's directory (or `file`), closed at teardown; read models are not waited for. */
export function sqliteCommandContext(
  t: { testdir(): string; teardown(fn: () => unknown): void },
  file = join(t.testdir(), 'events.sqlite'),
): CommandContext {
  const eventStore = new SqliteEventStore(file);
  t.teardown(() => eventStore.close());
  return {
    eventStore,
    documents: new MemoryDocumentStore(),
    clock: new FixedClock(new Date('2026-01-02T03:04:05Z')),
    hashSecret: scryptHasher(TEST_SECRET_HASH_COST),
    userId: 1,
    waitForProjections: async () => {},
  };
}
