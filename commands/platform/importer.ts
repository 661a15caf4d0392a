import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  duplicateIdProblems,
  fixtureFields,
  fixtureSection,
  fixtureObject,
  schemaProblems,
  type Fixture,
  type FixtureImporter,
  type FixtureProblem,
  type FixtureSource,
} from '../fixture.js';
import type { ModuleRuntime } from '../module-runtime.js';
import { createReadStream } from 'node:fs';
import { access, constants, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { CommandContext } from '../command-context.js';
import type { FileStorage } from '../../infra/file-storage/port.js';
import { sniffMimeType } from '../../infra/file-storage/sniff.js';
import { extensionOf, sanitiseFilename } from '../../infra/file-storage/filename.js';
import {
  ItemFields,
  ItemSetFields,
  MediaFields,
  PageBlock,
  SiteFields,
  SitePageFields,
} from '../../contracts/platform/fields.js';
import { fieldsOf, withoutDefault } from '../../infra/schema/record-fields.js';
import { createMediaWithFile } from './media-file-handlers.js';
import { normalisedRights } from './rights.js';
import { errorMessage } from '../../infra/errors.js';
import { inLanes } from '../in-lanes.js';
import { idsInOrder } from '../sequence.js';
import { createResource, ITEM, ITEM_SET, MEDIA, SITE, SITE_PAGE, type KindSpec } from './handlers.js';

/**
 * Items (each with its media) created at once: their appends share group commits and the
 * projections take their events in larger batches, where one at a time waited for every commit
 * and every projection pass of each record in turn.
 */
const ITEMS_IN_FLIGHT = 16;

const FixtureId = { id: Type.Optional(Type.Integer({ minimum: 1 })) };

/** Each record as a create takes it (its own id kept), from its fields (contracts/platform/fields.ts). */
const SiteSchema = fixtureObject({ ...FixtureId, ...fixtureFields(SiteFields.properties) });
const ItemSetSchema = fixtureObject({ ...FixtureId, ...fixtureFields(ItemSetFields.properties) });
/** A media is listed in its item's `media`, which names the item. */
const { item_id: _itemId, ...mediaFields } = MediaFields.properties;
const MediaSchema = fixtureObject({
  ...FixtureId,
  ...fixtureFields(mediaFields),
  file: Type.Optional(
    Type.String({ minLength: 1, description: "The media's file, relative to the fixture (`images/a.jpg`)." }),
  ),
});
const ItemSchema = fixtureObject({
  ...FixtureId,
  ...fixtureFields(ItemFields.properties),
  media: Type.Optional(Type.Array(MediaSchema)),
});
const { layout_data: layoutData } = SitePageFields.properties;
const PageSchema = fixtureObject({
  ...FixtureId,
  ...fixtureFields(SitePageFields.properties),
  /** null, as in a body, is `{}`. */
  layout_data: Type.Optional(Type.Union([withoutDefault(layoutData), Type.Null()])),
  blocks: Type.Optional(Type.Array(fixtureObject(fixtureFields(PageBlock.properties)))),
});

/** `rights` as the fixture gives it: a URI in its http:// form (normalisedRights refuses any other), or null. */
function rightsOf(rights: string | null | undefined): string | null | undefined {
  return typeof rights === 'string' ? normalisedRights(rights) : rights;
}

/** A media's `file`: relative to the fixture's folder (an absolute path is taken as it is). */
function fixtureFile(source: FixtureSource, file: string): string {
  return resolve(source.dir, file);
}

async function isReadableFile(path: string): Promise<boolean> {
  try {
    await access(path, constants.R_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** A media with the fixture's file, stored and recorded as an upload is (its type sniffed from the bytes). */
async function importMediaFile(
  ctx: CommandContext,
  { storage, path, fields, givenId }: { storage: FileStorage; path: string; fields: MediaFields; givenId: number },
): Promise<void> {
  const filename = sanitiseFilename(basename(path));
  const extension = extensionOf(filename);
  const pending = await storage.receive(createReadStream(path), extension);
  try {
    const mimeType = await sniffMimeType(pending.head, extension);
    await createMediaWithFile(ctx, { storage, fields, givenId, upload: { pending, filename, extension, mimeType } });
  } finally {
    await pending.discard();
  }
}

/** What the id checks read of a kind: its label and its streams. */
type KindName = Pick<KindSpec<object>, 'label' | 'stream'>;

/** A list section of the fixture, checked against its schema (fixtureSection); absent or not matching: none. */
function listOf<T extends TSchema>(fixture: Fixture, key: string, schema: T): Static<T>[] {
  return fixtureSection(fixture, key, Type.Array(schema)) ?? [];
}

const SECTIONS = [
  { key: 'sites', schema: SiteSchema, spec: SITE },
  { key: 'item_sets', schema: ItemSetSchema, spec: ITEM_SET },
  { key: 'items', schema: ItemSchema, spec: ITEM },
  { key: 'site_pages', schema: PageSchema, spec: SITE_PAGE },
] as const;

async function existingIdProblems(
  runtime: ModuleRuntime,
  { spec, list, path }: { spec: KindName; list: { id?: number }[]; path: string },
): Promise<FixtureProblem[]> {
  const problems: FixtureProblem[] = [];
  for (const [index, entry] of list.entries()) {
    if (entry.id !== undefined && (await runtime.eventStore.readLastEvent(spec.stream(entry.id)))) {
      problems.push({ path: `${path}[${index}].id`, message: `${spec.label} ${entry.id} already exists.` });
    }
  }
  return problems;
}

/** Ids a list refers to must exist, in the fixture or already in the store. */
async function referenceProblems(
  runtime: ModuleRuntime,
  { spec, fixtureIds, refs }: { spec: KindName; fixtureIds: Set<number>; refs: { path: string; id: number }[] },
): Promise<FixtureProblem[]> {
  const problems: FixtureProblem[] = [];
  for (const ref of refs) {
    if (fixtureIds.has(ref.id)) continue;
    if (!(await runtime.eventStore.readLastEvent(spec.stream(ref.id)))) {
      problems.push({ path: ref.path, message: `${spec.label} ${ref.id} does not exist.` });
    }
  }
  return problems;
}

function ids(list: { id?: number }[]): Set<number> {
  return new Set(list.map((e) => e.id).filter((id): id is number => id !== undefined));
}

/** Sites, item sets, items with their media, and site pages (CONTRACT.md section 4). */
export const platformImporter: FixtureImporter = {
  order: 20,
  sections: Object.fromEntries(SECTIONS.map((section) => [section.key, Type.Array(section.schema)])),
  async validate(fixture, runtime, source) {
    const problems: FixtureProblem[] = [];
    for (const section of SECTIONS) {
      const value = fixture[section.key];
      if (value === undefined) continue;
      problems.push(...schemaProblems(Type.Array(section.schema), value, `$.${section.key}`));
    }
    if (problems.length) return problems;
    const sites = listOf(fixture, 'sites', SiteSchema);
    const sets = listOf(fixture, 'item_sets', ItemSetSchema);
    const items = listOf(fixture, 'items', ItemSchema);
    const pages = listOf(fixture, 'site_pages', PageSchema);
    const media = items.flatMap((item, i) =>
      (item.media ?? []).map((m, j) => ({ ...m, path: `$.items[${i}].media[${j}]` })),
    );
    for (const [key, list] of [
      ['sites', sites],
      ['item_sets', sets],
      ['items', items],
      ['site_pages', pages],
    ] as const) {
      problems.push(...duplicateIdProblems(list, `$.${key}`));
    }
    items.forEach((item, i) => {
      try {
        rightsOf(item.rights);
      } catch (error) {
        problems.push({ path: `$.items[${i}].rights`, message: errorMessage(error) });
      }
    });
    for (const m of media) {
      if (m.file !== undefined && !(await isReadableFile(fixtureFile(source, m.file))))
        problems.push({ path: `${m.path}.file`, message: `No readable file at ${m.file} (relative to the fixture).` });
    }
    const seenMedia = new Set<number>();
    for (const m of media) {
      if (m.id === undefined) continue;
      if (seenMedia.has(m.id)) problems.push({ path: `${m.path}.id`, message: `Duplicate id ${m.id} in the fixture.` });
      seenMedia.add(m.id);
      if (await runtime.eventStore.readLastEvent(MEDIA.stream(m.id)))
        problems.push({ path: `${m.path}.id`, message: `Media ${m.id} already exists.` });
    }
    problems.push(...(await existingIdProblems(runtime, { spec: SITE, list: sites, path: '$.sites' })));
    problems.push(...(await existingIdProblems(runtime, { spec: ITEM_SET, list: sets, path: '$.item_sets' })));
    problems.push(...(await existingIdProblems(runtime, { spec: ITEM, list: items, path: '$.items' })));
    problems.push(...(await existingIdProblems(runtime, { spec: SITE_PAGE, list: pages, path: '$.site_pages' })));
    const siteIds = ids(sites);
    const setIds = ids(sets);
    problems.push(
      ...(await referenceProblems(runtime, {
        spec: SITE,
        fixtureIds: siteIds,
        refs: [
          ...sets.flatMap((s, i) =>
            (s.site_ids ?? []).map((id, j) => ({ path: `$.item_sets[${i}].site_ids[${j}]`, id })),
          ),
          ...items.flatMap((s, i) => (s.site_ids ?? []).map((id, j) => ({ path: `$.items[${i}].site_ids[${j}]`, id }))),
          ...pages.map((p, i) => ({ path: `$.site_pages[${i}].site_id`, id: p.site_id })),
        ],
      })),
      ...(await referenceProblems(runtime, {
        spec: ITEM_SET,
        fixtureIds: setIds,
        refs: items.flatMap((s, i) =>
          (s.item_set_ids ?? []).map((id, j) => ({ path: `$.items[${i}].item_set_ids[${j}]`, id })),
        ),
      })),
    );
    const slugs = new Set<string>();
    sites.forEach((site, i) => {
      if (slugs.has(site.slug)) problems.push({ path: `$.sites[${i}].slug`, message: 'Duplicate site slug.' });
      slugs.add(site.slug);
    });
    return problems;
  },
  count(fixture) {
    const items = listOf(fixture, 'items', ItemSchema);
    return (
      listOf(fixture, 'sites', SiteSchema).length +
      listOf(fixture, 'item_sets', ItemSetSchema).length +
      items.length +
      items.reduce((n, item) => n + (item.media?.length ?? 0), 0) +
      listOf(fixture, 'site_pages', PageSchema).length
    );
  },
  async import(fixture: Fixture, runtime, { progress, source }) {
    const ctx = runtime.commandContext(null);
    const storage = runtime.files.area('media');
    for (const site of listOf(fixture, 'sites', SiteSchema)) {
      await createResource(ctx, { spec: SITE, fields: fieldsOf(SiteFields, site), givenId: site.id });
      progress.tick();
    }
    for (const set of listOf(fixture, 'item_sets', ItemSetSchema)) {
      await createResource(ctx, { spec: ITEM_SET, fields: fieldsOf(ItemSetFields, set), givenId: set.id });
      progress.tick();
    }
    const items = listOf(fixture, 'items', ItemSchema);
    // The ids the items and media would take one by one, taken in one claim each: the creates
    // below then append no IdAllocated event, and run side by side as they no longer decide ids.
    const itemIds = await idsInOrder(
      ctx,
      ITEM.sequence,
      items.map((item) => item.id),
    );
    const mediaIds = await idsInOrder(
      ctx,
      MEDIA.sequence,
      items.flatMap((item) => (item.media ?? []).map((media) => media.id)),
    );
    // Where each item's media start in mediaIds.
    const firstMedia: number[] = [];
    let mediaSoFar = 0;
    for (const item of items) {
      firstMedia.push(mediaSoFar);
      mediaSoFar += item.media?.length ?? 0;
    }
    await inLanes(items.length, ITEMS_IN_FLIGHT, async (i) => {
      const item = items[i];
      const itemId = await createResource(ctx, {
        spec: ITEM,
        fields: fieldsOf(ItemFields, { ...item, rights: rightsOf(item.rights) }),
        givenId: itemIds[i],
      });
      progress.tick();
      for (const [j, media] of (item.media ?? []).entries()) {
        const fields = fieldsOf(MediaFields, { ...media, item_id: itemId });
        const givenId = mediaIds[firstMedia[i] + j];
        if (media.file === undefined) await createResource(ctx, { spec: MEDIA, fields, givenId });
        else await importMediaFile(ctx, { storage, path: fixtureFile(source, media.file), fields, givenId });
        progress.tick();
      }
    });
    for (const page of listOf(fixture, 'site_pages', PageSchema)) {
      await createResource(ctx, {
        spec: SITE_PAGE,
        fields: fieldsOf(SitePageFields, {
          ...page,
          layout_data: page.layout_data ?? undefined,
          blocks: page.blocks?.map((block) => fieldsOf(PageBlock, block)),
        }),
        givenId: page.id,
      });
      progress.tick();
    }
  },
};
