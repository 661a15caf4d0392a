import t from 'tap';
import {
  acceptedVersions,
  formatTag,
  noneMatch,
  parseTagList,
  versionOf,
  versionTag,
} from '../../../../routes/http/conditional/entity-tag.js';

t.test('parseTagList: lists, *, weak tags; members that do not parse are dropped', async (t) => {
  t.equal(parseTagList(undefined), undefined);
  t.equal(parseTagList(' * '), '*');
  t.same(parseTagList('"a", W/"b" ,"c-1"'), [
    { weak: false, opaque: 'a' },
    { weak: true, opaque: 'b' },
    { weak: false, opaque: 'c-1' },
  ]);
  t.same(parseTagList(['"a"', '"b"']), [
    { weak: false, opaque: 'a' },
    { weak: false, opaque: 'b' },
  ]);
  for (const bad of ['', 'abc', '"a', 'a"', 'W/a', 'w/"a"', '"a"b', '"a b"', '"a\\"b"', ',,'])
    t.same(parseTagList(bad), [], `${JSON.stringify(bad)} matches nothing`);
});

t.test('versions: a strong tag of ours names its version; others none', async (t) => {
  t.equal(formatTag(versionTag(12, 'xyz')), '"12-xyz"');
  t.equal(versionOf({ weak: false, opaque: '12-xyz' }), 12);
  t.equal(versionOf({ weak: false, opaque: '12' }), 12, "the 412's tag");
  t.equal(versionOf({ weak: true, opaque: '12-xyz' }), null, 'weak tags never match an If-Match');
  for (const opaque of ['', '0', '012-x', 'x-12', '12x', '1234567890123456-x'])
    t.equal(versionOf({ weak: false, opaque }), null, opaque);
  t.equal(acceptedVersions(undefined), undefined);
  t.equal(acceptedVersions('*'), undefined);
  t.same(acceptedVersions('"3-a", W/"4-b", "5", nonsense'), [3, 5]);
  t.same(acceptedVersions('nonsense'), [], 'a malformed If-Match accepts nothing');
});

t.test('noneMatch: weak comparison, * matches any', async (t) => {
  const current = { weak: false, opaque: '3-a' };
  t.equal(noneMatch('*', current), false);
  t.equal(noneMatch([{ weak: true, opaque: '3-a' }], current), false);
  t.equal(noneMatch([{ weak: false, opaque: '3-b' }], current), true);
  t.equal(noneMatch([], current), true);
});
