import t from 'tap';
import { Type } from '@sinclair/typebox';
import {
  creatable,
  fieldsOf,
  fromRenamed,
  knownFields,
  optional,
  presentFields,
  renamed,
  withDefault,
  withoutDefaults,
} from '../../../infra/schema/record-fields.js';

const Fields = Type.Object({
  title: Type.String({ maxLength: 9 }),
  alt: withDefault(Type.String({ description: 'text' }), ''),
  tags: withDefault(Type.Array(Type.String()), []),
  note: Type.Optional(Type.String()),
});

t.test('fieldsOf: given values, else defaults (copied), in the schema order; nothing else', async (t) => {
  const given = { tags: undefined, title: 'A', extra: 1 };
  const one = fieldsOf(Fields, given);
  t.same(Object.keys(one), ['title', 'alt', 'tags'], 'no note (no value, no default), no unknown key');
  t.same(one, { title: 'A', alt: '', tags: [] });
  one.tags.push('x');
  t.same(fieldsOf(Fields, { title: 'B' }).tags, [], 'a default list is never shared');
  t.same(fieldsOf(Fields, { title: 'C', alt: 'given', note: 'n' }), { title: 'C', alt: 'given', tags: [], note: 'n' });
});

t.test('bodies: optional and creatable drop the defaults, which Ajv would fill into a body', async (t) => {
  t.same(JSON.parse(JSON.stringify(Type.Object(optional(Fields.properties)))), {
    type: 'object',
    properties: {
      title: { maxLength: 9, type: 'string' },
      alt: { description: 'text', type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
      note: { type: 'string' },
    },
  });
  const created = JSON.parse(JSON.stringify(Type.Object(creatable(Fields.properties))));
  t.same(created.required, ['title'], 'only the field without a default (nor optional) is required');
  t.notOk('default' in created.properties.alt);
  t.same(
    Object.keys(withoutDefaults(Fields.properties).alt),
    ['description', 'type'].filter((k) => k !== ''),
  );
  t.equal(Fields.properties.alt.default, '', 'the fields keep their defaults');
});

t.test('knownFields and presentFields keep only the keys the schema declares', async (t) => {
  const body = { title: 'A', alt: '', tags: [], smuggled: true };
  t.same(knownFields(Fields, body), { title: 'A', alt: '', tags: [] });
  const patch = { title: 'A', alt: undefined, smuggled: true };
  t.same(presentFields(Fields, patch), { title: 'A' });
});

t.test('renamed and fromRenamed: a body names some fields its own way', async (t) => {
  const names = { title: 'name' } as const;
  const Body = Type.Object(renamed(optional(Fields.properties), names));
  t.same(Object.keys(Body.properties), ['name', 'alt', 'tags', 'note']);
  t.same(fromRenamed(Fields, names, { name: 'N', alt: undefined, title: 'ignored', note: 'n' }), {
    title: 'N',
    note: 'n',
  });
});
