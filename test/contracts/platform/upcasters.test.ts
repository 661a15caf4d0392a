import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import t from 'tap';
import type { ItemFields } from '../../../contracts/platform/fields.js';
import { ITEM_EVENTS } from '../../../contracts/platform/events.js';
import { platformUpcasters } from '../../../contracts/platform/upcasters.js';
import { EVENT_UPCASTING } from '../../../contracts/upcasters.js';

/**
 * An item event's data in the current shape, written out rather than derived. The assignment
 * below fails to compile when ItemFields gains or loses a field: the events stored before lack
 * it, and the upcaster (contracts/platform/upcasters.ts) gives them the field's default; when
 * that default is not what those items had, the field needs an upcaster of its own. This schema
 * follows.
 */
const CurrentItemFields = Type.Object(
  {
    title: Type.String(),
    description: Type.String(),
    is_public: Type.Boolean(),
    item_set_ids: Type.Array(Type.Integer()),
    site_ids: Type.Array(Type.Integer()),
    rights: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);
const CurrentItemCreated = Type.Object({ id: Type.Integer(), fields: CurrentItemFields });
const CurrentItemUpdated = Type.Object({
  id: Type.Integer(),
  fields: CurrentItemFields,
  changed: Type.Array(Type.String()),
});
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _sameShape: Same<Static<typeof CurrentItemFields>, ItemFields> = true;

/** Fields as items were stored before they had rights (commit 095f95e^). */
const beforeRights = () => ({
  title: 'Chart',
  description: '',
  is_public: true,
  item_set_ids: [10],
  site_ids: [1],
});

t.test('ItemCreated and ItemUpdated stored before rights: none (null)', async (t) => {
  const created = { id: 1, fields: beforeRights() };
  const up = platformUpcasters[ITEM_EVENTS.created](created);
  t.strictSame(up, { id: 1, fields: { ...beforeRights(), rights: null } });
  t.ok(Value.Check(CurrentItemCreated, up), 'in the current shape');
  t.strictSame(created, { id: 1, fields: beforeRights() }, 'the stored data is left as it was');

  const updated = { id: 1, fields: beforeRights(), changed: ['title'] };
  const upUpdated = platformUpcasters[ITEM_EVENTS.updated](updated);
  t.strictSame(upUpdated, { id: 1, fields: { ...beforeRights(), rights: null }, changed: ['title'] });
  t.ok(Value.Check(CurrentItemUpdated, upUpdated), 'in the current shape');
});

t.test('an item event that has rights, null or a URI, passes as it is', async (t) => {
  for (const rights of [null, 'http://creativecommons.org/licenses/by/4.0/']) {
    const data = { id: 1, fields: { ...beforeRights(), rights } };
    t.equal(platformUpcasters[ITEM_EVENTS.created](data), data);
    t.ok(Value.Check(CurrentItemCreated, data));
  }
});

t.test('data of a shape it does not know passes as it is (the reader decides)', async (t) => {
  for (const data of [null, 'text', [], { id: 1 }, { id: 1, fields: null }, { id: 1, fields: ['title'] }])
    t.equal(platformUpcasters[ITEM_EVENTS.created](data), data, JSON.stringify(data));
});

t.test("the log's upcasting takes the platform's", async (t) => {
  t.ok(EVENT_UPCASTING.types.has(ITEM_EVENTS.created));
  t.ok(EVENT_UPCASTING.types.has(ITEM_EVENTS.updated));
  t.strictSame(EVENT_UPCASTING.data(ITEM_EVENTS.updated, { id: 1, fields: beforeRights(), changed: [] }), {
    id: 1,
    fields: { ...beforeRights(), rights: null },
    changed: [],
  });
});
