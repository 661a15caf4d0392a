import t from 'tap';
import type { SitePageFields } from '../../../contracts/platform/fields.js';
import { diffPages } from '../../../queries/page-versioning/diff.js';

const page: SitePageFields = {
  site_id: 1,
  slug: 'about',
  title: 'About',
  is_public: true,
  layout: null,
  layout_data: { a: 1, b: { c: 2 } },
  blocks: [
    { layout: 'html', data: { html: '<p>1</p>' } },
    { layout: 'media', data: { ids: [1] } },
  ],
};

t.test('equal pages: nothing changed, whatever the key order', async (t) => {
  t.same(diffPages(page, { ...page, layout_data: { b: { c: 2 }, a: 1 } }), { fields: [], blocks: [] });
});

t.test('changed fields carry before and after', async (t) => {
  const after = { ...page, title: 'About us', is_public: false, layout_data: { a: 2 } };
  t.same(diffPages(page, after).fields, [
    { field: 'title', before: 'About', after: 'About us' },
    { field: 'is_public', before: true, after: false },
    { field: 'layout_data', before: { a: 1, b: { c: 2 } }, after: { a: 2 } },
  ]);
});

t.test('blocks: changed, added and removed by position', async (t) => {
  const changed = diffPages(page, {
    ...page,
    blocks: [page.blocks[0], { layout: 'media', data: { ids: [2] } }, { layout: 'html', data: {} }],
  });
  t.same(changed.blocks, [
    { index: 1, change: 'changed', before: page.blocks[1], after: { layout: 'media', data: { ids: [2] } } },
    { index: 2, change: 'added', before: null, after: { layout: 'html', data: {} } },
  ]);
  const removed = diffPages(page, { ...page, blocks: [page.blocks[0]] });
  t.same(removed.blocks, [{ index: 1, change: 'removed', before: page.blocks[1], after: null }]);
});

t.test('no earlier version: every field and block is new', async (t) => {
  const diff = diffPages(null, page);
  t.same(
    diff.fields.map((f) => [f.field, f.before]),
    [
      ['title', null],
      ['slug', null],
      ['is_public', null],
      ['layout', null],
      ['layout_data', null],
      ['site_id', null],
    ],
  );
  t.same(
    diff.blocks.map((b) => [b.index, b.change]),
    [
      [0, 'added'],
      [1, 'added'],
    ],
  );
});
