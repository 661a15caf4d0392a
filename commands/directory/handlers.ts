import { randomBytes } from 'node:crypto';
import { sha256 } from '../../infra/crypto/secret-hash.js';
import { ConflictError, ValidationError } from '../../infra/errors.js';
import type { Collection } from '../../infra/document-store/port.js';
import {
  databaseDocs,
  subjectDocs,
  tokenDocs,
  typeDocs,
  type DatabaseDoc,
  type TermDoc,
} from '../../contracts/directory/documents.js';
import { metadataFor, type CommandContext } from '../command-context.js';
import { handleCommand } from '../handle-command.js';
import { ifMatching } from '../precondition.js';
import { idFor } from '../sequence.js';
import { decideClick } from './click-decider.js';
import { databaseDecider } from './database-decider.js';
import {
  clickStream,
  DATABASE_VERSIONED,
  databaseStream,
  libraryStream,
  listStream,
  subjectStream,
  TOKEN_SEQUENCE,
  tokenStream,
  typeStream,
  type DatabaseFields,
  type LibrarySettings,
} from '../../contracts/directory/events.js';
import { libraryDecider } from './library-decider.js';
import type { ConfigureLibraryInput, DatabasePatchInput, IssueTokenInput } from './schemas.js';
import { TokenFields, type ListFields, type TermFields } from '../../contracts/directory/fields.js';
import { fieldsOf } from '../../infra/schema/record-fields.js';
import { listDecider } from './list-decider.js';
import { databaseTypeDecider, subjectDecider } from './term-decider.js';
import { tokenDecider } from './token-decider.js';

export async function configureLibrary(ctx: CommandContext, settings: ConfigureLibraryInput): Promise<LibrarySettings> {
  const result = await handleCommand(ctx, {
    stream: libraryStream(),
    decider: libraryDecider,
    command: { type: 'ConfigureLibrary', data: settings },
  });
  // The decider configures the library or throws: after it, the library has its settings.
  if (result.state.settings === null) throw new Error('The library has no settings after ConfigureLibrary.');
  return result.state.settings;
}

/** A new token is 32 random bytes: long enough that a fast hash (SHA-256) is a safe way to store it. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Issues `token` (the route's generated one, or the fixture's) with the body's origins (none: any) and label. */
export async function issueToken(
  ctx: CommandContext,
  { token, input, id: givenId }: { token: string; input: IssueTokenInput; id?: number },
): Promise<number> {
  const token_hash = sha256(token);
  if (await tokenDocs(ctx.documents).findOne({ token_hash })) throw new ConflictError('This token is already in use.');
  if (givenId !== undefined && (await ctx.eventStore.readLastEvent(tokenStream(givenId)))) {
    throw new ConflictError(`Token ${givenId} already exists.`);
  }
  const id = await idFor(ctx, TOKEN_SEQUENCE, givenId);
  await handleCommand(ctx, {
    stream: tokenStream(id),
    decider: tokenDecider,
    command: {
      type: 'IssueToken',
      data: { id, token_hash, ...fieldsOf(TokenFields, input) },
    },
  });
  return id;
}

export async function revokeToken(ctx: CommandContext, id: number): Promise<void> {
  await handleCommand(ctx, {
    stream: tokenStream(id),
    decider: tokenDecider,
    command: { type: 'RevokeToken', data: {} },
  });
}

export async function defineSubject(ctx: CommandContext, { handle, name }: TermFields): Promise<void> {
  await handleCommand(ctx, {
    stream: subjectStream(handle),
    decider: subjectDecider,
    command: { type: 'DefineTerm', data: { handle, name } },
  });
}

export async function defineDatabaseType(ctx: CommandContext, { handle, name }: TermFields): Promise<void> {
  await handleCommand(ctx, {
    stream: typeStream(handle),
    decider: databaseTypeDecider,
    command: { type: 'DefineTerm', data: { handle, name } },
  });
}

/** Refuses at `field` unless every one of `handles` is in `collection` (its records are `label`s). */
async function requireExisting<T extends TermDoc | DatabaseDoc>(
  collection: Collection<T>,
  { handles, field, label }: { handles: string[] | undefined; field: string; label: string },
): Promise<void> {
  for (const handle of new Set(handles ?? [])) {
    if (!(await collection.findOne({ _id: handle })))
      throw ValidationError.field(field, `Unknown ${label} "${handle}".`);
  }
}

async function checkTerms(ctx: CommandContext, fields: Partial<DatabaseFields>): Promise<void> {
  await requireExisting(subjectDocs(ctx.documents), { handles: fields.subjects, field: 'subjects', label: 'subject' });
  await requireExisting(typeDocs(ctx.documents), { handles: fields.types, field: 'types', label: 'type' });
}

export async function addDatabase(ctx: CommandContext, handle: string, fields: DatabaseFields): Promise<void> {
  await checkTerms(ctx, fields);
  await handleCommand(ctx, {
    stream: databaseStream(handle),
    decider: databaseDecider,
    command: { type: 'AddDatabase', data: { handle, fields } },
  });
}

export async function updateDatabase(
  ctx: CommandContext,
  { handle, patch, ifMatch }: { handle: string; patch: DatabasePatchInput; ifMatch?: readonly number[] },
): Promise<void> {
  await checkTerms(ctx, patch);
  await handleCommand(ctx, {
    stream: databaseStream(handle),
    decider: databaseDecider,
    command: { type: 'UpdateDatabase', data: { patch } },
    ifMatch: ifMatching(ifMatch, DATABASE_VERSIONED),
  });
}

export async function defineList(ctx: CommandContext, { handle, name, databases }: ListFields): Promise<void> {
  await requireExisting(databaseDocs(ctx.documents), { handles: databases, field: 'databases', label: 'database' });
  await handleCommand(ctx, {
    stream: listStream(handle),
    decider: listDecider,
    command: { type: 'DefineList', data: { handle, name, databases } },
  });
}

/**
 * Appends a click without reading the stream (no rule depends on earlier clicks), then waits for
 * the read models so an admin reading the counts right after sees it.
 */
export async function recordClick(ctx: CommandContext, handle: string): Promise<void> {
  const events = decideClick({ type: 'RecordClick', data: { handle, at: ctx.clock.now() } });
  const metadata = metadataFor(ctx);
  const result = await ctx.eventStore.append(
    clickStream(handle),
    events.map((e) => ({ type: e.type, data: e.data, metadata })),
    'any',
  );
  await ctx.waitForProjections(result.position);
}
