import t from 'tap';
import { sitePageDecider, siteDecider } from '../../../commands/platform/kinds.js';
import { foldEvents } from '../../../commands/decider.js';
import type { SiteFields, SitePageFields } from '../../../contracts/platform/fields.js';
import type { ResourceEvent } from '../../../contracts/platform/events.js';
import { ConflictError, NotFoundError, ValidationError } from '../../../infra/errors.js';
import { deciderSpec } from '../../decider-spec.js';

const page: SitePageFields = {
  site_id: 1,
  slug: 'about',
  title: 'About',
  is_public: true,
  layout: null,
  layout_data: {},
  blocks: [{ layout: 'html', data: { html: '<p>Hi</p>' } }],
};
const created: ResourceEvent<SitePageFields> = { type: 'SitePageCreated', data: { id: 5, fields: page } };
const pages = deciderSpec(sitePageDecider);

t.test('create records the full page', async (t) => {
  pages
    .given([])
    .when({ type: 'Create', data: { id: 5, fields: page } })
    .then(t, [created]);
  pages
    .given([created])
    .when({ type: 'Create', data: { id: 5, fields: page } })
    .thenThrows(t, ConflictError);
});

t.test('update carries the full page after the patch and names what changed', async (t) => {
  pages
    .given([created])
    .when({ type: 'Update', data: { patch: { title: 'About us', blocks: [] } } })
    .then(t, [
      {
        type: 'SitePageUpdated',
        data: { id: 5, fields: { ...page, title: 'About us', blocks: [] }, changed: ['title', 'blocks'] },
      },
    ]);
  pages
    .given([])
    .when({ type: 'Update', data: { patch: { title: 'x' } } })
    .thenThrows(t, NotFoundError);
  pages
    .given([created])
    .when({ type: 'Update', data: { patch: { title: 'About us', slug: undefined, is_public: true } } })
    .then(
      t,
      [{ type: 'SitePageUpdated', data: { id: 5, fields: { ...page, title: 'About us' }, changed: ['title'] } }],
      'keys given as undefined or unchanged are not named',
    );
  t.throws(
    () => sitePageDecider.decide({ type: 'Update', data: { patch: { title: 'x' } } }, sitePageDecider.initialState()),
    { message: 'Site page not found.' },
  );
  t.throws(
    () =>
      sitePageDecider.decide({ type: 'Create', data: { id: 5, fields: page } }, foldEvents(sitePageDecider, [created])),
    {
      message: 'Site page 5 already exists.',
    },
  );
});

t.test('rules: empty title, bad slug, block without layout are refused', async (t) => {
  pages
    .given([created])
    .when({ type: 'Update', data: { patch: { title: '  ' } } })
    .thenThrows(t, ValidationError);
  pages
    .given([created])
    .when({ type: 'Update', data: { patch: { slug: 'a b' } } })
    .thenThrows(t, ValidationError);
  pages
    .given([created])
    .when({ type: 'Update', data: { patch: { blocks: [{ layout: '', data: {} }] } } })
    .thenThrows(t, ValidationError);
});

t.test('delete once; nothing after', async (t) => {
  const deleted: ResourceEvent<SitePageFields> = { type: 'SitePageDeleted', data: { id: 5 } };
  pages.given([created]).when({ type: 'Delete', data: {} }).then(t, [deleted]);
  pages.given([created, deleted]).when({ type: 'Delete', data: {} }).thenThrows(t, NotFoundError);
  pages
    .given([created, deleted])
    .when({ type: 'Update', data: { patch: { title: 'x' } } })
    .thenThrows(t, NotFoundError);
});

t.test('sites need a slug and a title', async (t) => {
  const sites = deciderSpec(siteDecider);
  sites
    .given([])
    .when({ type: 'Create', data: { id: 1, fields: { slug: 'main', title: 'Main' } } })
    .then(t, [{ type: 'SiteCreated', data: { id: 1, fields: { slug: 'main', title: 'Main' } } }]);
  sites
    .given([])
    .when({ type: 'Create', data: { id: 1, fields: { slug: '', title: 'Main' } } })
    .thenThrows(t, ValidationError);
});

t.test('a deleted site tells each page attached to it', async (t) => {
  const parentDeleted = { type: 'ParentDeleted' as const, data: { id: 5, parent_id: 1 } };
  pages
    .given([created])
    .when(parentDeleted)
    .then(t, [{ type: 'SitePageDeleted', data: { id: 5 } }], 'a page of the site is deleted');
  pages
    .given([])
    .when(parentDeleted)
    .then(t, [{ type: 'SitePageWithdrawn', data: { id: 5, parent_id: 1 } }], 'a page not written yet is withdrawn');
  pages
    .given([created])
    .when({ type: 'ParentDeleted', data: { id: 5, parent_id: 2 } })
    .then(
      t,
      [{ type: 'SitePageDetached', data: { id: 5, parent_id: 2 } }],
      'a page in another site only moves its stream on',
    );
  pages
    .given([created, { type: 'SitePageDeleted', data: { id: 5 } }])
    .when(parentDeleted)
    .then(t, [], 'a deleted page stays deleted');
  const withdrawn: ResourceEvent<SitePageFields> = { type: 'SitePageWithdrawn', data: { id: 5, parent_id: 1 } };
  pages.given([withdrawn]).when(parentDeleted).then(t, []);
  pages
    .given([withdrawn])
    .when({ type: 'Create', data: { id: 5, fields: page } })
    .thenThrows(t, ValidationError, 'its create is refused: the site must exist');
  pages
    .given([withdrawn])
    .when({ type: 'Update', data: { patch: { title: 'x' } } })
    .thenThrows(t, NotFoundError);
  t.equal(foldEvents(sitePageDecider, [withdrawn]).status, 'withdrawn');
});

t.test("a kind without a parent rule is never deleted by a parent's deletion", async (t) => {
  const sites = deciderSpec(siteDecider);
  const site: ResourceEvent<SiteFields> = {
    type: 'SiteCreated',
    data: { id: 1, fields: { slug: 'main', title: 'Main' } },
  };
  sites
    .given([site])
    .when({ type: 'ParentDeleted', data: { id: 1, parent_id: 1 } })
    .then(t, [{ type: 'SiteDetached', data: { id: 1, parent_id: 1 } }]);
  sites
    .given([])
    .when({ type: 'ParentDeleted', data: { id: 1, parent_id: 1 } })
    .then(t, [{ type: 'SiteWithdrawn', data: { id: 1, parent_id: 1 } }]);
  sites
    .given([{ type: 'SiteWithdrawn', data: { id: 1, parent_id: 1 } }])
    .when({ type: 'Create', data: { id: 1, fields: { slug: 'main', title: 'Main' } } })
    .thenThrows(t, ConflictError);
});

t.test('evolve: the life cycle events fold; an event of another kind changes nothing', async (t) => {
  const state = foldEvents(sitePageDecider, [created]);
  t.same(state, { status: 'live', id: 5, fields: page });
  t.same(
    sitePageDecider.evolve(state, { type: 'SitePageDeleted', data: { id: 5 } }),
    { status: 'deleted', id: 5, fields: page },
    'a deleted page keeps its last fields',
  );
  t.equal(sitePageDecider.evolve(state, { type: 'SitePageDetached', data: { id: 5, parent_id: 2 } }), state);
  // A stream may hold another module's events, which this decider's event type does not name.
  const painted = { type: 'SitePagePainted', data: { id: 5 } } as unknown as ResourceEvent<SitePageFields>;
  t.equal(sitePageDecider.evolve(state, painted), state);
});
