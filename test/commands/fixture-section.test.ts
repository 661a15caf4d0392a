import { Type } from '@sinclair/typebox';
import t from 'tap';
import { fixtureObject, fixtureSection } from '../../commands/fixture.js';

const Sites = Type.Array(
  fixtureObject({ id: Type.Optional(Type.Integer({ minimum: 1 })), slug: Type.String({ minLength: 1 }) }),
);

t.test('a section that matches its schema is answered with its type', async (t) => {
  const sites = [{ id: 3, slug: 'main' }, { slug: 'other' }];
  t.equal(fixtureSection({ sites }, 'sites', Sites), sites, 'the section itself, not a copy');
});

t.test('a section absent or not matching its schema counts as absent', async (t) => {
  t.equal(fixtureSection({}, 'sites', Sites), undefined);
  t.equal(fixtureSection({ sites: [{ slug: '' }] }, 'sites', Sites), undefined, 'a value the schema refuses');
  t.equal(fixtureSection({ sites: [{ slug: 'main', colour: 'red' }] }, 'sites', Sites), undefined, 'an unknown key');
  t.equal(fixtureSection({ sites: 'main' }, 'sites', Sites), undefined, 'not a list');
});
