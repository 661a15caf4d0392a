import t from 'tap';
import { Type } from '@sinclair/typebox';
import { fieldDefaultsUpcaster } from '../../../infra/event-store/field-defaults.js';
import { withDefault } from '../../../infra/schema/record-fields.js';

const Fields = Type.Object({
  title: Type.String(),
  tags: withDefault(Type.Array(Type.String()), []),
  note: withDefault(Type.Union([Type.String(), Type.Null()]), null),
});
const upcast = fieldDefaultsUpcaster(Fields);

t.test('a stored event lacking fields with a default is given them, after its own', async (t) => {
  const stored = { id: 1, fields: { title: 'Map' }, changed: ['title'] };
  const current = upcast(stored);
  t.strictSame(current, { id: 1, fields: { title: 'Map', tags: [], note: null }, changed: ['title'] });
  t.strictSame(stored, { id: 1, fields: { title: 'Map' }, changed: ['title'] }, 'the stored data is left as it was');
  t.strictSame(Object.keys(Object(current).fields), ['title', 'tags', 'note'], 'in the order of the fields');
});

t.test('each upcast event gets its own copy of a default list', async (t) => {
  const one = upcast({ id: 1, fields: { title: 'A' } });
  const two = upcast({ id: 2, fields: { title: 'B' } });
  t.not(Object(one).fields.tags, Object(two).fields.tags);
});

t.test('data already current, or of a shape it does not know, comes back as it is', async (t) => {
  const current = { id: 1, fields: { title: 'Map', tags: ['x'], note: 'n' } };
  t.equal(upcast(current), current);
  const missingRequired = { id: 1, fields: { tags: [], note: null } };
  t.equal(upcast(missingRequired), missingRequired, 'a field without a default is not made up');
  for (const data of [null, 'text', [], { id: 1 }, { id: 1, fields: null }, { id: 1, fields: ['title'] }])
    t.equal(upcast(data), data, JSON.stringify(data));
});
