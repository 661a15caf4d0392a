import t from 'tap';
import { Value } from '@sinclair/typebox/value';
import { ItemBody, MediaBody, SitePageBody } from '../../../commands/platform/schemas.js';
import { ItemFields } from '../../../contracts/platform/fields.js';
import { ValidationError } from '../../../infra/errors.js';

t.test("a body's keys are the fields' as `o:` keys, in their order, references where fields hold ids", async (t) => {
  t.strictSame(Object.keys(ItemBody.schema.properties), [
    'o:title',
    'o:description',
    'o:is_public',
    'o:item_set',
    'o:site',
    'o:rights',
  ]);
  t.strictSame(Object.keys(ItemBody.schema.properties).length, Object.keys(ItemFields.properties).length);
  t.notOk(
    Object.values(ItemBody.schema.properties).some((schema) => 'default' in schema),
    'no default: the app would fill it into a PATCH',
  );
  t.strictSame(ItemBody.required, ['o:title'], 'the fields without a default');
  t.strictSame(SitePageBody.required, ['o:site', 'o:slug', 'o:title']);
  t.ok(Value.Check(ItemBody.schema, { 'o:title': 'Map', '@id': 'ignored' }), 'an open body');
});

t.test('a patch holds the fields the body carries, and only those', async (t) => {
  t.strictSame(ItemBody.patch({ 'o:title': 'Map', 'o:site': [{ 'o:id': 2 }] }), { title: 'Map', site_ids: [2] });
  t.strictSame(ItemBody.patch({}), {});
  t.strictSame(ItemBody.patch({ 'o:rights': 'https://creativecommons.org/licenses/by/4.0/' }), {
    rights: 'http://creativecommons.org/licenses/by/4.0/',
  });
  t.strictSame(ItemBody.patch({ 'o:rights': null }), { rights: null }, 'null removes the rights');
  t.throws(() => ItemBody.patch({ 'o:rights': 'all mine' }), ValidationError);
  t.strictSame(SitePageBody.patch({ 'o:layout_data': null, 'o:block': [{ 'o:layout': 'html' }] }), {
    layout_data: {},
    blocks: [{ layout: 'html', data: {} }],
  });
});

t.test('a create takes the defaults of the fields the body leaves out, in the fields order', async (t) => {
  const fields = ItemBody.create({ 'o:item_set': [{ 'o:id': 3 }], 'o:title': 'Map' });
  t.strictSame(fields, {
    title: 'Map',
    description: '',
    is_public: true,
    item_set_ids: [3],
    site_ids: [],
    rights: null,
  });
  t.strictSame(Object.keys(fields), Object.keys(ItemFields.properties));
  t.strictSame(MediaBody.create({ 'o:item': { 'o:id': 1 } }, { title: 'scan.jpg' }), {
    item_id: 1,
    title: 'scan.jpg',
    text: '',
    is_public: true,
  });
  t.equal(MediaBody.create({ 'o:item': { 'o:id': 1 }, 'o:title': 'Given' }, { title: 'scan.jpg' }).title, 'Given');
});

t.test('a create without a required key is a 422 naming each one missing, before any value is read', async (t) => {
  const error = t.throws(() => SitePageBody.create({ 'o:slug': 'home' }));
  t.match(error, {
    message: 'Required fields are missing.',
    statusCode: 422,
    fields: { 'o:site': ['This field is required.'], 'o:title': ['This field is required.'] },
  });
  t.match(
    t.throws(() => ItemBody.create({ 'o:rights': 'all mine' })),
    { fields: { 'o:title': ['This field is required.'] } },
    'the missing title is told, not the rights',
  );
});
