import type { Collection, Document } from '../../infra/document-store/port.js';
import { NotFoundError, ValidationError } from '../../infra/errors.js';
import type { CommandContext } from '../command-context.js';
import { foldEvents, type Decider } from '../decider.js';
import { definedKeys } from '../defined-keys.js';
import { handleCommand, toDomainEvents } from '../handle-command.js';
import { checkPrecondition, ifMatching } from '../precondition.js';
import { attachedChildIds, attachToParent, PARENT_WRITE_RETRIES } from '../reservations/parent-guard.js';
import { releaseKeyQuietly, withKey, type KeyReservation } from '../reservations/reservations.js';
import { idFor } from '../sequence.js';
import { MEDIA_FILE_EVENTS } from '../../contracts/platform/media-files.js';
import type {
  ItemFields,
  ItemSetFields,
  MediaFields,
  SiteFields,
  SitePageFields,
} from '../../contracts/platform/fields.js';
import {
  ITEM_EVENTS,
  ITEM_SET_EVENTS,
  MEDIA_EVENTS,
  SITE_PAGE_EVENTS,
  SITE_PAGE_REVERTED,
  versionedBy,
  SITE_EVENTS,
  type ResourceEvent,
} from '../../contracts/platform/events.js';
import {
  itemDecider,
  itemSetDecider,
  itemStream,
  itemSetStream,
  mediaDecider,
  mediaStream,
  SITE_PAGE_ATTACHED,
  siteDecider,
  siteMustExist,
  sitePageDecider,
  sitePageStream,
  siteStream,
} from './kinds.js';
import type { ResourceCommand, ResourceState } from './resource-decider.js';
import { itemSets, items, mediaDocs, sitePages, sites } from '../../contracts/platform/documents.js';

/** What the generic create/update/delete handlers need to know about one resource kind. */
export interface KindSpec<Fields extends object> {
  sequence: string;
  label: string;
  stream(id: number): string;
  decider: Decider<ResourceState<Fields>, ResourceCommand<Fields>, ResourceEvent<Fields>>;
  /** The events that make a record's version (its ETag's), as its read model folds them. */
  versionedBy: ReadonlySet<string>;
  collection(ctx: CommandContext): Collection<Document & Partial<Fields>>;
  /**
   * Checks in the read models that referenced resources exist and unique keys stay unique;
   * throws ValidationError. It covers records written before reservations and parent guards
   * existed, and refuses the common case before anything is written.
   */
  checkReferences(ctx: CommandContext, fields: Partial<Fields>, id: number | null): Promise<void>;
  /** A key unique across the kind (a slug in its scope), reserved in the event store as well (commands/reservations). */
  unique?: UniqueKey<Fields>;
  /** The parent the record belongs to, guarded in the parent's stream (commands/reservations/parent-decider.ts). */
  parent?: ParentLink<Fields>;
  /** Deletes what cannot outlive the resource (an item's media), before the resource itself. */
  cascadeDelete?(ctx: CommandContext, id: number): Promise<void>;
  /** Deletes what cannot outlive the resource (a site's pages), after the resource itself. */
  afterDelete?(ctx: CommandContext, id: number): Promise<void>;
}

export interface UniqueKey<Fields> {
  /** The reservation key of a full set of fields (`site-slug-main`). */
  key(fields: Fields): string;
  /** Whether a record other than `id` has the key in the read models. */
  taken(ctx: CommandContext, fields: Fields, id: number | null): Promise<boolean>;
  /** A duplicate's refusal. */
  refuse(): ValidationError;
}

export interface ParentLink<Fields> {
  id(fields: Fields): number;
  stream(parentId: number): string;
  /** The parent's event types after which it is gone. */
  goneTypes: readonly string[];
  /** What the parent's stream records about a child attaching to it. */
  attachedType: string;
  refuse(): ValidationError;
}

/** Refuses at `field` unless every one of `ids` is in `collection` (its records are `label`s). */
async function requireAll(
  collection: Collection<Document>,
  { ids, field, label }: { ids: number[] | undefined; field: string; label: string },
): Promise<void> {
  if (!ids || ids.length === 0) return;
  const unique = [...new Set(ids)];
  const found = await collection.count({ _id: { $in: unique } });
  if (found !== unique.length) throw ValidationError.field(field, `Every ${label} must exist.`);
}

const SITE_SLUG: UniqueKey<SiteFields> = {
  key: (fields) => `site-slug-${fields.slug}`,
  async taken(ctx, fields, id) {
    return (await sites(ctx.documents).findOne({ slug: fields.slug, _id: { $ne: id ?? -1 } })) !== null;
  },
  refuse: () => ValidationError.field('o:slug', 'Another site has this slug.'),
};

export const SITE: KindSpec<SiteFields> = {
  sequence: 'site',
  label: 'Site',
  stream: siteStream,
  decider: siteDecider,
  versionedBy: versionedBy(SITE_EVENTS),
  collection: (ctx) => sites(ctx.documents),
  async checkReferences(ctx, fields, id) {
    if (fields.slug === undefined) return;
    if (await SITE_SLUG.taken(ctx, { slug: fields.slug, title: '' }, id)) throw SITE_SLUG.refuse();
  },
  unique: SITE_SLUG,
  /**
   * Every page attached to the site in its stream (a create that attached before the delete may
   * not be written yet) and every page the read models place in it (pages older than the guard).
   */
  async afterDelete(ctx, id) {
    const attached = await attachedChildIds(ctx, siteStream(id), SITE_PAGE_ATTACHED);
    const placed = (await sitePages(ctx.documents).find({ site_id: id })).map((page) => page.id);
    for (const pageId of new Set([...attached, ...placed]))
      await parentDeleted(ctx, { spec: SITE_PAGE, id: pageId, parentId: id });
  },
};

/** A page's slug is unique in its site: the key and the read-model check read those two fields alone. */
const SITE_PAGE_SLUG: UniqueKey<Pick<SitePageFields, 'site_id' | 'slug'>> = {
  key: (fields) => `site_page-slug-${fields.site_id}-${fields.slug}`,
  async taken(ctx, fields, id) {
    return (
      (await sitePages(ctx.documents).findOne({
        site_id: fields.site_id,
        slug: fields.slug,
        _id: { $ne: id ?? -1 },
      })) !== null
    );
  },
  refuse: () => ValidationError.field('o:slug', 'Another page of this site has this slug.'),
};

export const ITEM_SET: KindSpec<ItemSetFields> = {
  sequence: 'item_set',
  label: 'Item set',
  stream: itemSetStream,
  decider: itemSetDecider,
  versionedBy: versionedBy(ITEM_SET_EVENTS),
  collection: (ctx) => itemSets(ctx.documents),
  async checkReferences(ctx, fields) {
    await requireAll(sites(ctx.documents), { ids: fields.site_ids, field: 'o:site', label: 'site' });
  },
};

export const ITEM: KindSpec<ItemFields> = {
  sequence: 'item',
  label: 'Item',
  stream: itemStream,
  decider: itemDecider,
  versionedBy: versionedBy(ITEM_EVENTS),
  collection: (ctx) => items(ctx.documents),
  async checkReferences(ctx, fields) {
    await requireAll(sites(ctx.documents), { ids: fields.site_ids, field: 'o:site', label: 'site' });
    await requireAll(itemSets(ctx.documents), { ids: fields.item_set_ids, field: 'o:item_set', label: 'item set' });
  },
  async cascadeDelete(ctx, id) {
    for (const media of await mediaDocs(ctx.documents).find({ item_id: id }))
      await deleteResource(ctx, { spec: MEDIA, id: media.id });
  },
};

export const MEDIA: KindSpec<MediaFields> = {
  sequence: 'media',
  label: 'Media',
  stream: mediaStream,
  decider: mediaDecider,
  versionedBy: versionedBy(MEDIA_EVENTS, ...Object.values(MEDIA_FILE_EVENTS)),
  collection: (ctx) => mediaDocs(ctx.documents),
  async checkReferences(ctx, fields) {
    if (fields.item_id !== undefined)
      await requireAll(items(ctx.documents), { ids: [fields.item_id], field: 'o:item', label: 'item' });
  },
};

export const SITE_PAGE: KindSpec<SitePageFields> = {
  sequence: 'site_page',
  label: 'Site page',
  stream: sitePageStream,
  decider: sitePageDecider,
  versionedBy: versionedBy(SITE_PAGE_EVENTS, SITE_PAGE_REVERTED),
  collection: (ctx) => sitePages(ctx.documents),
  async checkReferences(ctx, fields, id) {
    if (fields.site_id !== undefined)
      await requireAll(sites(ctx.documents), { ids: [fields.site_id], field: 'o:site', label: 'site' });
    if (fields.slug === undefined && fields.site_id === undefined) return;
    const current = id === null ? null : await sitePages(ctx.documents).findOne({ _id: id });
    const siteId = fields.site_id ?? current?.site_id;
    const slug = fields.slug ?? current?.slug;
    if (siteId === undefined || slug === undefined) return;
    if (await SITE_PAGE_SLUG.taken(ctx, { site_id: siteId, slug }, id)) throw SITE_PAGE_SLUG.refuse();
  },
  unique: SITE_PAGE_SLUG,
  parent: {
    id: (fields) => fields.site_id,
    stream: siteStream,
    goneTypes: [SITE_EVENTS.deleted],
    attachedType: SITE_PAGE_ATTACHED,
    refuse: siteMustExist,
  },
};

/** A record `id` of a kind with the fields it is written with (and, when it exists, had `before`). */
interface RecordWrite<Fields extends object> {
  spec: KindSpec<Fields>;
  id: number;
  fields: Fields;
  before?: Fields | null;
}

function reservationOf<Fields extends object>(
  ctx: CommandContext,
  { spec, fields, id }: RecordWrite<Fields>,
): KeyReservation | null {
  const unique = spec.unique;
  if (!unique) return null;
  return {
    key: unique.key(fields),
    owner: spec.stream(id),
    refuse: unique.refuse,
    inUse: () => unique.taken(ctx, fields, id),
  };
}

/** The guard that attaches the record to its parent before its write, when it enters that parent. */
function parentGuardOf<Fields extends object>(
  ctx: CommandContext,
  { spec, fields, id, before = null }: RecordWrite<Fields>,
) {
  const parent = spec.parent;
  if (!parent || (before !== null && parent.id(before) === parent.id(fields))) return undefined;
  const parentId = parent.id(fields);
  return () =>
    attachToParent(ctx, {
      stream: parent.stream(parentId),
      goneTypes: parent.goneTypes,
      attached: { type: parent.attachedType, data: { id, parent_id: parentId } },
      refuse: parent.refuse,
    });
}

/** The record as its own stream says (null when it is not live). */
export async function currentFields<Fields extends object>(
  ctx: CommandContext,
  spec: KindSpec<Fields>,
  id: number,
): Promise<Fields | null> {
  const state = foldEvents(spec.decider, toDomainEvents(await ctx.eventStore.readStream(spec.stream(id))));
  return state.status === 'live' ? state.fields : null;
}

/**
 * Tells a child of a deleted parent: it is deleted (or never written, when its create attached
 * and is still on its way), and gives up its unique key.
 */
async function parentDeleted<Fields extends object>(
  ctx: CommandContext,
  { spec, id, parentId }: { spec: KindSpec<Fields>; id: number; parentId: number },
): Promise<void> {
  const result = await handleCommand(ctx, {
    stream: spec.stream(id),
    decider: spec.decider,
    command: { type: 'ParentDeleted', data: { id, parent_id: parentId } },
    retries: 20,
  });
  if (result.state.status === 'deleted' && result.events.length > 0 && result.state.fields && spec.unique) {
    await releaseKeyQuietly(ctx, spec.unique.key(result.state.fields), spec.stream(id));
  }
}

/** A create of a record of `spec`'s kind; `givenId` is the fixture's id. */
export interface CreateResource<Fields extends object> {
  spec: KindSpec<Fields>;
  fields: Fields;
  givenId?: number;
}

export async function createResource<Fields extends object>(
  ctx: CommandContext,
  { spec, fields, givenId }: CreateResource<Fields>,
): Promise<number> {
  await spec.checkReferences(ctx, fields, null);
  if (givenId !== undefined && (await ctx.eventStore.readLastEvent(spec.stream(givenId)))) {
    throw ValidationError.field('o:id', `${spec.label} ${givenId} already exists.`);
  }
  const id = await idFor(ctx, spec.sequence, givenId);
  await withKey(ctx, {
    reservation: reservationOf(ctx, { spec, fields, id }),
    previous: null,
    write: () =>
      handleCommand(ctx, {
        stream: spec.stream(id),
        decider: spec.decider,
        command: { type: 'Create', data: { id, fields } },
        beforeAppend: parentGuardOf(ctx, { spec, fields, id }),
      }),
  });
  return id;
}

/** An update of record `id` of `spec`'s kind: the keys of `patch` change; `ifMatch`, the client's If-Match. */
export interface UpdateResource<Fields extends object> {
  spec: KindSpec<Fields>;
  id: number;
  patch: Partial<Fields>;
  ifMatch?: readonly number[];
}

export async function updateResource<Fields extends object>(
  ctx: CommandContext,
  { spec, id, patch, ifMatch }: UpdateResource<Fields>,
): Promise<Fields> {
  await spec.checkReferences(ctx, patch, id);
  const before = spec.unique || spec.parent ? await currentFields(ctx, spec, id) : null;
  const update = { type: 'Update' as const, data: { patch } };
  const retries = spec.afterDelete ? PARENT_WRITE_RETRIES : undefined;
  const precondition = ifMatching(ifMatch, spec.versionedBy);
  if (before === null)
    return updatedFields(
      spec,
      await handleCommand(ctx, {
        stream: spec.stream(id),
        decider: spec.decider,
        command: update,
        retries,
        ifMatch: precondition,
      }),
    );
  const after = { ...before, ...definedKeys(patch) };
  return updatedFields(
    spec,
    await rewriteKeyed(ctx, {
      spec,
      id,
      before,
      after,
      write: (guard) =>
        handleCommand(ctx, {
          stream: spec.stream(id),
          decider: spec.decider,
          command: update,
          beforeAppend: guard,
          retries,
          ifMatch: precondition,
        }),
    }),
  );
}

/**
 * Runs a write that changes a live record from `before` to `after` under its rules that span
 * records: a new unique key is reserved first and the old one released after the write; entering
 * another parent attaches to it, through the guard `write` passes to handleCommand.
 */
export function rewriteKeyed<Fields extends object, T>(
  ctx: CommandContext,
  {
    spec,
    id,
    before,
    after,
    write,
  }: {
    spec: KindSpec<Fields>;
    id: number;
    before: Fields;
    after: Fields;
    write: (guard: (() => Promise<void>) | undefined) => Promise<T>;
  },
): Promise<T> {
  const record = { spec, id, fields: after, before };
  return withKey(ctx, {
    reservation: reservationOf(ctx, record),
    previous: spec.unique?.key(before) ?? null,
    write: () => write(parentGuardOf(ctx, record)),
  });
}

function updatedFields<Fields extends object>(
  spec: KindSpec<Fields>,
  result: { state: { fields: Fields | null } },
): Fields {
  if (!result.state.fields) throw new NotFoundError(`${spec.label} not found.`);
  return result.state.fields;
}

export async function deleteResource<Fields extends object>(
  ctx: CommandContext,
  { spec, id, ifMatch }: { spec: KindSpec<Fields>; id: number; ifMatch?: readonly number[] },
): Promise<void> {
  const precondition = ifMatching(ifMatch, spec.versionedBy);
  // The cascade comes first: a stale If-Match must refuse before it deletes anything. The check
  // is made again, atomically, with the delete itself.
  if (precondition && spec.cascadeDelete)
    checkPrecondition(await ctx.eventStore.readStream(spec.stream(id)), precondition);
  await spec.cascadeDelete?.(ctx, id);
  const result = await handleCommand(ctx, {
    stream: spec.stream(id),
    decider: spec.decider,
    command: { type: 'Delete', data: {} },
    retries: spec.afterDelete ? PARENT_WRITE_RETRIES : undefined,
    ifMatch: precondition,
  });
  if (spec.unique && result.state.fields)
    await releaseKeyQuietly(ctx, spec.unique.key(result.state.fields), spec.stream(id));
  await spec.afterDelete?.(ctx, id);
}
