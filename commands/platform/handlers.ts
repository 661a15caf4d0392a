import type { Collection, Document } from '../../infra/document-store/port.js';
import { NotFoundError, ValidationError } from '../../infra/errors.js';
import type { CommandContext } from '../command-context.js';
import type { Decider } from '../decider.js';
import { handleCommand } from '../handle-command.js';
import { idFor } from '../sequence.js';
import type { ItemFields, ItemSetFields, MediaFields, SiteFields, SitePageFields } from './fields.js';
import {
  itemDecider,
  itemSetDecider,
  itemStream,
  itemSetStream,
  mediaDecider,
  mediaStream,
  siteDecider,
  sitePageDecider,
  sitePageStream,
  siteStream,
} from './kinds.js';
import type { ResourceCommand, ResourceEvent, ResourceState } from './resource-decider.js';
import { itemSets, items, mediaDocs, sitePages, sites } from '../../queries/platform/documents.js';

/** What the generic create/update/delete handlers need to know about one resource kind. */
export interface KindSpec<Fields extends object> {
  sequence: string;
  label: string;
  stream(id: number): string;
  decider: Decider<ResourceState<Fields>, ResourceCommand<Fields>, ResourceEvent<Fields>>;
  collection(ctx: CommandContext): Collection<Document & Fields>;
  /** Checks that referenced resources exist and unique keys stay unique; throws ValidationError. */
  checkReferences(ctx: CommandContext, fields: Partial<Fields>, id: number | null): Promise<void>;
  /** Deletes what cannot outlive the resource (an item's media, a site's pages). */
  cascadeDelete?(ctx: CommandContext, id: number): Promise<void>;
}

async function requireAll(collection: Collection<Document>, ids: number[] | undefined, field: string, label: string): Promise<void> {
  if (!ids || ids.length === 0) return;
  const unique = [...new Set(ids)];
  const found = await collection.count({ _id: { $in: unique } });
  if (found !== unique.length) throw ValidationError.field(field, `Every ${label} must exist.`);
}

export const SITE: KindSpec<SiteFields> = {
  sequence: 'site',
  label: 'Site',
  stream: siteStream,
  decider: siteDecider,
  collection: (ctx) => sites(ctx.documents),
  async checkReferences(ctx, fields, id) {
    if (fields.slug === undefined) return;
    const clash = await sites(ctx.documents).findOne({ slug: fields.slug, _id: { $ne: id ?? -1 } });
    if (clash) throw ValidationError.field('o:slug', 'Another site has this slug.');
  },
  async cascadeDelete(ctx, id) {
    for (const page of await sitePages(ctx.documents).find({ site_id: id })) await deleteResource(ctx, SITE_PAGE, page.id);
  },
};

export const ITEM_SET: KindSpec<ItemSetFields> = {
  sequence: 'item_set',
  label: 'Item set',
  stream: itemSetStream,
  decider: itemSetDecider,
  collection: (ctx) => itemSets(ctx.documents),
  async checkReferences(ctx, fields) {
    await requireAll(sites(ctx.documents), fields.site_ids, 'o:site', 'site');
  },
};

export const ITEM: KindSpec<ItemFields> = {
  sequence: 'item',
  label: 'Item',
  stream: itemStream,
  decider: itemDecider,
  collection: (ctx) => items(ctx.documents),
  async checkReferences(ctx, fields) {
    await requireAll(sites(ctx.documents), fields.site_ids, 'o:site', 'site');
    await requireAll(itemSets(ctx.documents), fields.item_set_ids, 'o:item_set', 'item set');
  },
  async cascadeDelete(ctx, id) {
    for (const media of await mediaDocs(ctx.documents).find({ item_id: id })) await deleteResource(ctx, MEDIA, media.id);
  },
};

export const MEDIA: KindSpec<MediaFields> = {
  sequence: 'media',
  label: 'Media',
  stream: mediaStream,
  decider: mediaDecider,
  collection: (ctx) => mediaDocs(ctx.documents),
  async checkReferences(ctx, fields) {
    if (fields.item_id !== undefined) await requireAll(items(ctx.documents), [fields.item_id], 'o:item', 'item');
  },
};

export const SITE_PAGE: KindSpec<SitePageFields> = {
  sequence: 'site_page',
  label: 'Site page',
  stream: sitePageStream,
  decider: sitePageDecider,
  collection: (ctx) => sitePages(ctx.documents),
  async checkReferences(ctx, fields, id) {
    if (fields.site_id !== undefined) await requireAll(sites(ctx.documents), [fields.site_id], 'o:site', 'site');
    if (fields.slug === undefined && fields.site_id === undefined) return;
    const current = id === null ? null : await sitePages(ctx.documents).findOne({ _id: id });
    const siteId = fields.site_id ?? current?.site_id;
    const slug = fields.slug ?? current?.slug;
    const clash = await sitePages(ctx.documents).findOne({ site_id: siteId, slug, _id: { $ne: id ?? -1 } });
    if (clash) throw ValidationError.field('o:slug', 'Another page of this site has this slug.');
  },
};

export async function createResource<Fields extends object>(
  ctx: CommandContext,
  spec: KindSpec<Fields>,
  fields: Fields,
  givenId?: number,
): Promise<number> {
  await spec.checkReferences(ctx, fields, null);
  if (givenId !== undefined && (await ctx.eventStore.readLastEvent(spec.stream(givenId)))) {
    throw ValidationError.field('o:id', `${spec.label} ${givenId} already exists.`);
  }
  const id = await idFor(ctx, spec.sequence, givenId);
  await handleCommand(ctx, spec.stream(id), spec.decider, { type: 'Create', data: { id, fields } });
  return id;
}

export async function updateResource<Fields extends object>(
  ctx: CommandContext,
  spec: KindSpec<Fields>,
  id: number,
  patch: Partial<Fields>,
): Promise<Fields> {
  await spec.checkReferences(ctx, patch, id);
  const result = await handleCommand(ctx, spec.stream(id), spec.decider, { type: 'Update', data: { patch } });
  if (!result.state.fields) throw new NotFoundError(`${spec.label} not found.`);
  return result.state.fields;
}

export async function deleteResource<Fields extends object>(
  ctx: CommandContext,
  spec: KindSpec<Fields>,
  id: number,
): Promise<void> {
  await spec.cascadeDelete?.(ctx, id);
  await handleCommand(ctx, spec.stream(id), spec.decider, { type: 'Delete', data: {} });
}
