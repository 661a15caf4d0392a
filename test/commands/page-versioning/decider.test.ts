import t from 'tap';
import type { SitePageFields } from '../../../contracts/platform/fields.js';
import { sitePageDecider } from '../../../commands/platform/kinds.js';
import type { ResourceEvent } from '../../../contracts/platform/events.js';
import { versionedSitePageDecider } from '../../../commands/page-versioning/decider.js';
import type { SitePageEvent } from '../../../contracts/page-versioning/events.js';
import { defaultRevertSummary } from '../../../commands/page-versioning/revert-summary.js';
import { foldEvents } from '../../../commands/decider.js';
import { NotFoundError } from '../../../infra/errors.js';
import { deciderSpec } from '../../decider-spec.js';

const first: SitePageFields = {
  site_id: 1,
  slug: 'about',
  title: 'About',
  is_public: true,
  layout: null,
  layout_data: {},
  blocks: [{ layout: 'html', data: { html: '<p>One</p>' } }],
};
const second: SitePageFields = { ...first, title: 'About us', blocks: [] };
const created: SitePageEvent = { type: 'SitePageCreated', data: { id: 5, fields: first } };
const updated: SitePageEvent = {
  type: 'SitePageUpdated',
  data: { id: 5, fields: second, changed: ['title', 'blocks'] },
};
const deleted: SitePageEvent = { type: 'SitePageDeleted', data: { id: 5 } };
const target = { id: 3, saved_at: '2026-01-02 03:04:05', fields: first };
const pages = deciderSpec(versionedSitePageDecider);

t.test('revert appends SitePageReverted with the old content and the default note', async (t) => {
  pages
    .given([created, updated])
    .when({ type: 'RevertSitePage', data: { target } })
    .then(t, [
      {
        type: 'SitePageReverted',
        data: {
          id: 5,
          fields: first,
          reverted_to_version_id: 3,
          summary: 'Reverted to version #3 (saved 2026-01-02 03:04:05)',
        },
      },
    ]);
  t.equal(defaultRevertSummary(3, '2026-01-02 03:04:05'), 'Reverted to version #3 (saved 2026-01-02 03:04:05)');
});

t.test("revert keeps the editor's note, trimmed; a blank note means the default", async (t) => {
  pages
    .given([created, updated])
    .when({ type: 'RevertSitePage', data: { target, summary: '  Back to the first draft ' } })
    .then(t, [
      {
        type: 'SitePageReverted',
        data: { id: 5, fields: first, reverted_to_version_id: 3, summary: 'Back to the first draft' },
      },
    ]);
  pages
    .given([created, updated])
    .when({ type: 'RevertSitePage', data: { target, summary: '   ' } })
    .then(t, [
      {
        type: 'SitePageReverted',
        data: {
          id: 5,
          fields: first,
          reverted_to_version_id: 3,
          summary: 'Reverted to version #3 (saved 2026-01-02 03:04:05)',
        },
      },
    ]);
});

t.test('a page that does not exist or was deleted cannot be reverted', async (t) => {
  pages.given([]).when({ type: 'RevertSitePage', data: { target } }).thenThrows(t, NotFoundError);
  pages.given([created, deleted]).when({ type: 'RevertSitePage', data: { target } }).thenThrows(t, NotFoundError);
});

t.test("create, update and delete are the platform decider's own", async (t) => {
  pages
    .given([])
    .when({ type: 'Create', data: { id: 5, fields: first } })
    .then(t, [created]);
  pages
    .given([created])
    .when({ type: 'Update', data: { patch: { title: 'About us', blocks: [] } } })
    .then(t, [updated]);
  pages.given([created]).when({ type: 'Delete', data: {} }).then(t, [deleted]);
});

t.test('after a revert, the page (for both deciders) is the restored content', async (t) => {
  const reverted: SitePageEvent = {
    type: 'SitePageReverted',
    data: { id: 5, fields: first, reverted_to_version_id: 3, summary: 'x' },
  };
  t.same(foldEvents(versionedSitePageDecider, [created, updated, reverted]).fields, first);
  const platformView = foldEvents(sitePageDecider, [created, updated, reverted] as ResourceEvent<SitePageFields>[]);
  t.same(platformView.fields, first, 'the platform decider evolves on SitePageReverted too');
  t.equal(platformView.status, 'live');
  pages
    .given([created, updated, reverted])
    .when({ type: 'Update', data: { patch: { title: 'Later' } } })
    .then(
      t,
      [{ type: 'SitePageUpdated', data: { id: 5, fields: { ...first, title: 'Later' }, changed: ['title'] } }],
      'a later update starts from the reverted page',
    );
});
