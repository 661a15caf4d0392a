import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import t from 'tap';
import { importFixture } from '../../app/import-fixture.js';
import { foldEvents } from '../../commands/decider.js';
import { toDomainEvents } from '../../commands/handle-command.js';
import { itemDecider, itemStream } from '../../commands/platform/kinds.js';
import type { ResourceEvent } from '../../contracts/platform/events.js';
import type { ItemFields } from '../../contracts/platform/fields.js';
import { manifestDocs } from '../../contracts/iiif/documents.js';
import { oaiRecords } from '../../contracts/oai/documents.js';
import { items } from '../../contracts/platform/documents.js';
import { buildTestApp, json, keyFor, ROLE_USERS } from '../helper.js';

/** A line of the backups' events.ndjson (workers/backups/event-log.ts), checked as read. */
const EventLine = Type.Object({
  position: Type.Integer(),
  streamId: Type.String(),
  streamVersion: Type.Integer(),
  type: Type.String(),
  data: Type.Unknown(),
  metadata: Type.Object({
    userId: Type.Union([Type.Integer(), Type.Null()]),
    at: Type.String(),
    requestId: Type.Optional(Type.String()),
  }),
});

/** Items created and updated before items had rights (test/fixtures/upcast/README.md). */
function storedBeforeRights(): Static<typeof EventLine>[] {
  const text = readFileSync(new URL('../fixtures/upcast/items-before-rights.ndjson', import.meta.url), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const event: unknown = JSON.parse(line);
      if (!Value.Check(EventLine, event)) throw new Error(`Not an event line: ${line}`);
      return event;
    });
}

const chart = {
  title: 'Chart of the harbour',
  description: 'Soundings in fathoms, surveyed in 1790.',
  is_public: true,
  item_set_ids: [],
  site_ids: [],
};
const log = { title: "Ship's log", description: '', is_public: false, item_set_ids: [], site_ids: [] };

t.test('events stored before a field existed: deciders, read models and reads see the current shape', async (t) => {
  const { app, runtime } = await buildTestApp(t);
  const stored = storedBeforeRights();
  for (const line of stored) {
    const { streamId, type, data, metadata } = line;
    const appended = await runtime.eventStore.append(streamId, [{ type, data, metadata }], line.streamVersion - 1);
    t.equal(appended.position, line.position, `${type} at its position`);
  }
  await importFixture(runtime, { users: ROLE_USERS });
  await runtime.projections.catchUp();
  const editor = keyFor('editor');

  t.test('the log keeps them as they were stored', async (t) => {
    const events = await runtime.eventStore.readStream(itemStream(1));
    t.strictSame(
      events.map((e) => e.data),
      stored.filter((line) => line.streamId === itemStream(1)).map((line) => line.data),
    );
  });

  t.test('the decider folds them with rights: null', async (t) => {
    const events = toDomainEvents<ResourceEvent<ItemFields>>(await runtime.eventStore.readStream(itemStream(1)));
    t.strictSame(foldEvents(itemDecider, events), { status: 'live', id: 1, fields: { ...chart, rights: null } });
  });

  t.test('the projections fold them with rights: null', async (t) => {
    for (const [id, fields] of [
      [1, chart],
      [2, log],
    ] as const) {
      const doc = await items(runtime.documents).findOne({ _id: id });
      t.match(doc, { ...fields, version: id === 1 ? 2 : 1 }, `item ${id}`);
      t.equal(doc?.rights, null, `item ${id} has no rights`);
      t.equal((await manifestDocs(runtime.documents).findOne({ _id: id }))?.rights, null, `item ${id}'s manifest`);
    }
    t.equal((await oaiRecords(runtime.documents).findOne({ _id: 1 }))?.content?.rights, null, "item 1's record");
  });

  t.test('they read as items without rights', async (t) => {
    const chartRead = await app.inject({ method: 'GET', url: '/api/items/1' });
    t.equal(chartRead.statusCode, 200);
    const body = json<Record<string, unknown>>(chartRead);
    t.match(body, { 'o:title': chart.title, 'o:description': chart.description, 'o:is_public': true });
    t.notOk('o:rights' in body);
    t.equal((await app.inject({ method: 'GET', url: '/api/items/2' })).statusCode, 404, 'a private item stays so');
    t.match(json(await app.inject({ method: 'GET', url: `/api/items/2?${editor}` })), { 'o:title': log.title });
  });

  t.test('a write after them decides on the current shape and appends it', async (t) => {
    const patch = (payload: object) => app.inject({ method: 'PATCH', url: `/api/items/1?${editor}`, payload });
    t.equal((await patch({ 'o:title': 'Harbour chart' })).statusCode, 200);
    const renamed = await runtime.eventStore.readLastEvent(itemStream(1));
    t.strictSame(renamed?.data, {
      id: 1,
      fields: { ...chart, title: 'Harbour chart', rights: null },
      changed: ['title'],
    });
    const licensed = await patch({ 'o:rights': 'https://creativecommons.org/licenses/by/4.0/' });
    t.equal(json<Record<string, unknown>>(licensed)['o:rights'], 'http://creativecommons.org/licenses/by/4.0/');
    t.match((await runtime.eventStore.readLastEvent(itemStream(1)))?.data, { changed: ['rights'] });
    t.equal(
      (await items(runtime.documents).findOne({ _id: 1 }))?.rights,
      'http://creativecommons.org/licenses/by/4.0/',
    );
  });

  t.test('an item created now carries rights: null, and takes the next id', async (t) => {
    const created = await app.inject({ method: 'POST', url: `/api/items?${editor}`, payload: { 'o:title': 'Globe' } });
    t.equal(created.statusCode, 201);
    const id = json<{ 'o:id': number }>(created)['o:id'];
    t.equal(id, 3, 'after the ids the old log released');
    const [createdEvent] = await runtime.eventStore.readStream(itemStream(id));
    t.strictSame(createdEvent.data, {
      id,
      fields: { title: 'Globe', description: '', is_public: true, item_set_ids: [], site_ids: [], rights: null },
    });
  });
});
