import t from 'tap';
import { sitePageDecider, siteDecider } from '../../../commands/platform/kinds.js';
import type { SitePageFields } from '../../../commands/platform/fields.js';
import type { ResourceEvent } from '../../../commands/platform/resource-decider.js';
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
  pages.given([]).when({ type: 'Create', data: { id: 5, fields: page } }).then(t, [created]);
  pages.given([created]).when({ type: 'Create', data: { id: 5, fields: page } }).thenThrows(t, ConflictError);
});

t.test('update carries the full page after the patch and names what changed', async (t) => {
  pages
    .given([created])
    .when({ type: 'Update', data: { patch: { title: 'About us', blocks: [] } } })
    .then(t, [{ type: 'SitePageUpdated', data: { id: 5, fields: { ...page, title: 'About us', blocks: [] }, changed: ['title', 'blocks'] } }]);
  pages.given([]).when({ type: 'Update', data: { patch: { title: 'x' } } }).thenThrows(t, NotFoundError);
});

t.test('rules: empty title, bad slug, block without layout are refused', async (t) => {
  pages.given([created]).when({ type: 'Update', data: { patch: { title: '  ' } } }).thenThrows(t, ValidationError);
  pages.given([created]).when({ type: 'Update', data: { patch: { slug: 'a b' } } }).thenThrows(t, ValidationError);
  pages
    .given([created])
    .when({ type: 'Update', data: { patch: { blocks: [{ layout: '', data: {} }] } } })
    .thenThrows(t, ValidationError);
});

t.test('delete once; nothing after', async (t) => {
  const deleted: ResourceEvent<SitePageFields> = { type: 'SitePageDeleted', data: { id: 5 } };
  pages.given([created]).when({ type: 'Delete', data: {} }).then(t, [deleted]);
  pages.given([created, deleted]).when({ type: 'Delete', data: {} }).thenThrows(t, NotFoundError);
  pages.given([created, deleted]).when({ type: 'Update', data: { patch: { title: 'x' } } }).thenThrows(t, NotFoundError);
});

t.test('sites need a slug and a title', async (t) => {
  const sites = deciderSpec(siteDecider);
  sites.given([]).when({ type: 'Create', data: { id: 1, fields: { slug: 'main', title: 'Main' } } }).then(t, [
    { type: 'SiteCreated', data: { id: 1, fields: { slug: 'main', title: 'Main' } } },
  ]);
  sites.given([]).when({ type: 'Create', data: { id: 1, fields: { slug: '', title: 'Main' } } }).thenThrows(t, ValidationError);
});

t.test('a deleted site tells each page attached to it', async (t) => {
  const parentDeleted = { type: 'ParentDeleted' as const, data: { id: 5, parent_id: 1 } };
  pages.given([created]).when(parentDeleted).then(t, [{ type: 'SitePageDeleted', data: { id: 5 } }], 'a page of the site is deleted');
  pages.given([]).when(parentDeleted).then(t, [{ type: 'SitePageWithdrawn', data: { id: 5, parent_id: 1 } }], 'a page not written yet is withdrawn');
  pages
    .given([created])
    .when({ type: 'ParentDeleted', data: { id: 5, parent_id: 2 } })
    .then(t, [{ type: 'SitePageDetached', data: { id: 5, parent_id: 2 } }], 'a page in another site only moves its stream on');
  pages.given([created, { type: 'SitePageDeleted', data: { id: 5 } }]).when(parentDeleted).then(t, [], 'a deleted page stays deleted');
  const withdrawn: ResourceEvent<SitePageFields> = { type: 'SitePageWithdrawn', data: { id: 5, parent_id: 1 } };
  pages.given([withdrawn]).when(parentDeleted).then(t, []);
  pages.given([withdrawn]).when({ type: 'Create', data: { id: 5, fields: page } }).thenThrows(t, ValidationError, 'its create is refused: the site must exist');
  pages.given([withdrawn]).when({ type: 'Update', data: { patch: { title: 'x' } } }).thenThrows(t, NotFoundError);
});
