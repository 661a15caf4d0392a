import { Type, type Static } from '@sinclair/typebox';
import {
  fixtureFields,
  fixtureObject,
  fixtureSection,
  schemaProblems,
  type Fixture,
  type FixtureImporter,
  type FixtureProblem,
} from '../fixture.js';
import type { ModuleRuntime } from '../module-runtime.js';
import { sha256 } from '../../infra/crypto/secret-hash.js';
import { tokenDocs } from '../../contracts/directory/documents.js';
import { databaseStream, listStream, subjectStream, typeStream } from '../../contracts/directory/events.js';
import {
  addDatabase,
  configureLibrary,
  defineDatabaseType,
  defineList,
  defineSubject,
  issueToken,
} from './handlers.js';
import {
  DatabaseFields,
  Handle,
  LibrarySettings,
  ListFields,
  TermFields,
  TokenFields,
} from '../../contracts/directory/fields.js';
import { fieldsOf, withoutDefault } from '../../infra/schema/record-fields.js';
import { checkDatabase } from './database-decider.js';
import { ValidationError } from '../../infra/errors.js';
import { isHttpUrl, normalizeOrigin } from '../../infra/net/origin.js';

/** Each record as its create takes it, from its fields (contracts/directory/fields.ts). */
const Term = fixtureObject(TermFields.properties);
const { proxy_prefix: proxyPrefix } = LibrarySettings.properties;

const DirectorySchema = fixtureObject({
  library: Type.Optional(
    fixtureObject({
      ...fixtureFields(LibrarySettings.properties),
      /** null, as none: ''. */
      proxy_prefix: Type.Optional(Type.Union([withoutDefault(proxyPrefix), Type.Null()])),
    }),
  ),
  tokens: Type.Optional(
    Type.Array(
      fixtureObject({
        token: Type.String({ minLength: 1, maxLength: 500 }),
        ...fixtureFields(TokenFields.properties),
      }),
    ),
  ),
  subjects: Type.Optional(Type.Array(Term)),
  types: Type.Optional(Type.Array(Term)),
  databases: Type.Optional(Type.Array(fixtureObject({ handle: Handle, ...fixtureFields(DatabaseFields.properties) }))),
  lists: Type.Optional(Type.Array(fixtureObject(ListFields.properties))),
});
type DirectoryInput = Static<typeof DirectorySchema>;

const ROOT = '$.directory';

function directoryOf(fixture: Fixture): DirectoryInput {
  return fixtureSection(fixture, 'directory', DirectorySchema) ?? {};
}

/** Handles of one section: duplicates in the fixture and handles already in the store are problems. */
async function handleProblems(
  runtime: ModuleRuntime,
  {
    entries,
    section,
    label,
    stream,
  }: { entries: { handle: string }[] | undefined; section: string; label: string; stream: (handle: string) => string },
): Promise<FixtureProblem[]> {
  const problems: FixtureProblem[] = [];
  const seen = new Set<string>();
  for (const [i, entry] of (entries ?? []).entries()) {
    const path = `${ROOT}.${section}[${i}].handle`;
    if (seen.has(entry.handle))
      problems.push({ path, message: `Duplicate ${label} handle "${entry.handle}" in the fixture.` });
    else if (await runtime.eventStore.readLastEvent(stream(entry.handle))) {
      problems.push({ path, message: `${label} "${entry.handle}" already exists.` });
    }
    seen.add(entry.handle);
  }
  return problems;
}

/** Each referenced handle must be defined in the fixture or already in the store. */
async function referenceProblems(
  runtime: ModuleRuntime,
  {
    refs,
    inFixture,
    label,
    stream,
  }: {
    refs: { path: string; handle: string }[];
    inFixture: Set<string>;
    label: string;
    stream: (handle: string) => string;
  },
): Promise<FixtureProblem[]> {
  const problems: FixtureProblem[] = [];
  for (const ref of refs) {
    if (inFixture.has(ref.handle) || (await runtime.eventStore.readLastEvent(stream(ref.handle)))) continue;
    problems.push({ path: ref.path, message: `Unknown ${label} "${ref.handle}".` });
  }
  return problems;
}

async function tokenProblems(runtime: ModuleRuntime, tokens: DirectoryInput['tokens']): Promise<FixtureProblem[]> {
  const problems: FixtureProblem[] = [];
  const seen = new Set<string>();
  for (const [i, token] of (tokens ?? []).entries()) {
    const path = `${ROOT}.tokens[${i}]`;
    if (seen.has(token.token)) problems.push({ path: `${path}.token`, message: 'Duplicate token in the fixture.' });
    else if (await tokenDocs(runtime.documents).findOne({ token_hash: sha256(token.token) })) {
      problems.push({ path: `${path}.token`, message: 'This token is already in use.' });
    }
    seen.add(token.token);
    (token.allowed_origins ?? []).forEach((origin, j) => {
      if (!normalizeOrigin(origin)) {
        problems.push({
          path: `${path}.allowed_origins[${j}]`,
          message: 'Must be an origin such as https://library.example.edu.',
        });
      }
    });
  }
  return problems;
}

/** The refusal of a rule (a decider's check) at `path`, as a fixture problem naming its field. */
function ruleProblems(path: string, check: () => void): FixtureProblem[] {
  try {
    check();
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const field = Object.keys(error.fields ?? {})[0];
    return [{ path: field ? `${path}.${field}` : path, message: error.message }];
  }
}

/** The handles each entry of `section` names in its `key` list, with their paths. */
function refsOf<K extends string>(
  entries: Partial<Record<K, string[]>>[] | undefined,
  section: string,
  key: K,
): { path: string; handle: string }[] {
  return (entries ?? []).flatMap((entry, i) =>
    (entry[key] ?? []).map((handle, j) => ({ path: `${ROOT}.${section}[${i}].${key}[${j}]`, handle })),
  );
}

/** The directory part of the fixture (CONTRACT.md section 4): library, tokens, subjects, types, databases, lists. */
export const directoryImporter: FixtureImporter = {
  order: 80,
  sections: { directory: DirectorySchema },
  async validate(fixture, runtime) {
    if (fixture.directory === undefined) return [];
    const schema = schemaProblems(DirectorySchema, fixture.directory, ROOT);
    if (schema.length) return schema;
    const dir = directoryOf(fixture);
    const problems: FixtureProblem[] = [];
    const prefix = dir.library?.proxy_prefix;
    if (prefix && !isHttpUrl(prefix))
      problems.push({ path: `${ROOT}.library.proxy_prefix`, message: 'Must be an http(s) URL prefix.' });
    problems.push(...(await tokenProblems(runtime, dir.tokens)));
    problems.push(
      ...(await handleProblems(runtime, {
        entries: dir.subjects,
        section: 'subjects',
        label: 'Subject',
        stream: subjectStream,
      })),
    );
    problems.push(
      ...(await handleProblems(runtime, { entries: dir.types, section: 'types', label: 'Type', stream: typeStream })),
    );
    problems.push(
      ...(await handleProblems(runtime, {
        entries: dir.databases,
        section: 'databases',
        label: 'Database',
        stream: databaseStream,
      })),
    );
    problems.push(
      ...(await handleProblems(runtime, { entries: dir.lists, section: 'lists', label: 'List', stream: listStream })),
    );
    (dir.databases ?? []).forEach((db, i) => {
      if (!isHttpUrl(db.url))
        problems.push({ path: `${ROOT}.databases[${i}].url`, message: 'Must be an http(s) URL.' });
      else problems.push(...ruleProblems(`${ROOT}.databases[${i}]`, () => checkDatabase(fieldsOf(DatabaseFields, db))));
    });
    const handles = (entries: { handle: string }[] | undefined) => new Set((entries ?? []).map((e) => e.handle));
    problems.push(
      ...(await referenceProblems(runtime, {
        refs: refsOf(dir.databases, 'databases', 'subjects'),
        inFixture: handles(dir.subjects),
        label: 'subject',
        stream: subjectStream,
      })),
    );
    problems.push(
      ...(await referenceProblems(runtime, {
        refs: refsOf(dir.databases, 'databases', 'types'),
        inFixture: handles(dir.types),
        label: 'type',
        stream: typeStream,
      })),
    );
    problems.push(
      ...(await referenceProblems(runtime, {
        refs: refsOf(dir.lists, 'lists', 'databases'),
        inFixture: handles(dir.databases),
        label: 'database',
        stream: databaseStream,
      })),
    );
    (dir.lists ?? []).forEach((list, i) => {
      const seen = new Set<string>();
      list.databases.forEach((handle, j) => {
        if (seen.has(handle))
          problems.push({
            path: `${ROOT}.lists[${i}].databases[${j}]`,
            message: `Database "${handle}" appears twice in the list.`,
          });
        seen.add(handle);
      });
    });
    return problems;
  },
  count(fixture) {
    const dir = directoryOf(fixture);
    return (
      (dir.library ? 1 : 0) +
      [dir.tokens, dir.subjects, dir.types, dir.databases, dir.lists].reduce((n, list) => n + (list?.length ?? 0), 0)
    );
  },
  async import(fixture, runtime, { progress }) {
    if (fixture.directory === undefined) return;
    const dir = directoryOf(fixture);
    const ctx = runtime.commandContext(null);
    if (dir.library) {
      await configureLibrary(ctx, { ...dir.library, proxy_prefix: dir.library.proxy_prefix ?? '' });
      progress.tick();
    }
    for (const subject of dir.subjects ?? []) {
      await defineSubject(ctx, subject);
      progress.tick();
    }
    for (const type of dir.types ?? []) {
      await defineDatabaseType(ctx, type);
      progress.tick();
    }
    for (const db of dir.databases ?? []) {
      await addDatabase(ctx, db.handle, fieldsOf(DatabaseFields, db));
      progress.tick();
    }
    for (const list of dir.lists ?? []) {
      await defineList(ctx, list);
      progress.tick();
    }
    for (const token of dir.tokens ?? []) {
      await issueToken(ctx, {
        token: token.token,
        input: { allowed_origins: token.allowed_origins, label: token.label },
      });
      progress.tick();
    }
  },
};
