import t from 'tap';
import { testConfig } from '../../test-config.js';
import { createRuntime, type Runtime } from '../../../app/runtime.js';
import { revertPage } from '../../../commands/page-versioning/handlers.js';
import type { SitePageFields } from '../../../contracts/platform/fields.js';
import { createResource, SITE, SITE_PAGE, updateResource } from '../../../commands/platform/handlers.js';
import { FixedClock } from '../../../infra/clock/port.js';
import { pageAtVersion } from '../../../commands/page-versioning/replay.js';
import { findVersion, listVersions } from '../../../queries/page-versioning/versions.js';
import { sitePages } from '../../../contracts/platform/documents.js';
import { appModules } from '../../../app/modules.js';

const FIELDS = ['site_id', 'slug', 'title', 'is_public', 'layout', 'layout_data', 'blocks'] as const;

async function pageNow(runtime: Runtime, id: number): Promise<SitePageFields> {
  const doc = await sitePages(runtime.documents).findOne({ _id: id });
  if (!doc) throw new Error(`page ${id} missing`);
  return Object.fromEntries(FIELDS.map((key) => [key, doc[key]])) as unknown as SitePageFields;
}

async function allVersions(runtime: Runtime, pageId: number) {
  return (await listVersions(runtime.documents, pageId, { limit: 200, offset: 0 })).versions.reverse();
}

t.test('the payload of version N is the page after its first N events, across restarts', async (t) => {
  const dir = t.testdir();
  const config = testConfig(dir);
  const clock = new FixedClock(new Date('2026-05-01T08:00:00Z'));
  let runtime = await createRuntime(config, { modules: appModules, clock, startWorkers: false });
  t.teardown(() => runtime.close());
  const ctx = runtime.commandContext(null);

  await createResource(ctx, { spec: SITE, fields: { slug: 'main', title: 'Main' }, givenId: 1 });
  const pageId = await createResource(ctx, {
    spec: SITE_PAGE,
    fields: {
      site_id: 1,
      slug: 'about',
      title: 'About',
      is_public: true,
      layout: null,
      layout_data: {},
      blocks: [{ layout: 'html', data: { html: '<p>1</p>' } }],
    },
  });
  const otherId = await createResource(ctx, {
    spec: SITE_PAGE,
    fields: { site_id: 1, slug: 'other', title: 'Other', is_public: true, layout: null, layout_data: {}, blocks: [] },
  });
  const seen: SitePageFields[] = [await pageNow(runtime, pageId)];
  const patches: Partial<SitePageFields>[] = [
    { title: 'About us' },
    {
      blocks: [
        { layout: 'html', data: { html: '<p>2</p>' } },
        { layout: 'media', data: { ids: [1, 2] } },
      ],
    },
    { is_public: false, layout: 'columns', layout_data: { columns: 2 } },
    { slug: 'about-us', blocks: [] },
  ];
  for (const patch of patches) {
    clock.advance(1000);
    await updateResource(ctx, { spec: SITE_PAGE, id: pageId, patch });
    await updateResource(ctx, { spec: SITE_PAGE, id: otherId, patch: { title: `Other ${seen.length}` } });
    seen.push(await pageNow(runtime, pageId));
  }
  const beforeRevert = await allVersions(runtime, pageId);
  await revertPage(ctx, { versionId: beforeRevert[2].id });
  seen.push(await pageNow(runtime, pageId));
  const withRevert = await allVersions(runtime, pageId);
  await revertPage(ctx, { versionId: withRevert[withRevert.length - 1].id, summary: 'revert of a revert' });
  seen.push(await pageNow(runtime, pageId));

  const versions = await allVersions(runtime, pageId);
  t.same(
    versions.map((v) => v.operation),
    ['create', 'update', 'update', 'update', 'update', 'revert', 'revert'],
  );
  t.same(seen[5], seen[2], 'the revert restored version 3');
  t.same(seen[6], seen[5], 'reverting to a revert restores what it restored');
  for (const [index, version] of versions.entries()) {
    const row = await findVersion(runtime.documents, version.id);
    if (!row) throw new Error(`version ${version.id} missing`);
    t.equal(row.stream_version, index + 1, `version ${version.id} is the page after ${index + 1} events`);
    t.same(
      await pageAtVersion(runtime.eventStore, row),
      seen[index],
      `version ${index + 1} replays to the page as it then was`,
    );
  }

  await runtime.close();
  runtime = await createRuntime(config, { modules: appModules, clock, startWorkers: false });
  const replayed = await allVersions(runtime, pageId);
  t.same(replayed, versions, 'after a restart the read model is rebuilt with the same ids and rows');
});
