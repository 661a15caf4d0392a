import type { PageBlock, SitePageFields } from '../../contracts/platform/fields.js';

/** The page fields a diff compares one by one, in the order it lists them; blocks are compared by position. */
export const DIFFED_FIELDS = ['title', 'slug', 'is_public', 'layout', 'layout_data', 'site_id'] as const;
export type DiffedField = (typeof DIFFED_FIELDS)[number];
/** A page field (contracts/platform/fields.ts) not in DIFFED_FIELDS: tsc names it here until it is placed there. */
type NotDiffed = Exclude<keyof SitePageFields, DiffedField | 'blocks'>;
const _everyFieldDiffed: [NotDiffed] extends [never] ? true : NotDiffed = true;

export interface FieldChange {
  field: DiffedField;
  before: unknown;
  after: unknown;
}

export interface BlockChange {
  /** 0-based position of the block in the page. */
  index: number;
  change: 'added' | 'removed' | 'changed';
  before: PageBlock | null;
  after: PageBlock | null;
}

export interface PageDiff {
  fields: FieldChange[];
  blocks: BlockChange[];
}

/** JSON with object keys sorted, so two equal values compare equal whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** What changed from `before` (null: no earlier version, every field is new) to `after`. */
export function diffPages(before: SitePageFields | null, after: SitePageFields): PageDiff {
  const fields: FieldChange[] = [];
  for (const field of DIFFED_FIELDS) {
    const was = before ? before[field] : null;
    if (before === null || canonical(was) !== canonical(after[field]))
      fields.push({ field, before: was, after: after[field] });
  }
  const blocks: BlockChange[] = [];
  const oldBlocks = before?.blocks ?? [];
  for (let index = 0; index < Math.max(oldBlocks.length, after.blocks.length); index++) {
    const was = oldBlocks[index] ?? null;
    const now = after.blocks[index] ?? null;
    if (was === null) blocks.push({ index, change: 'added', before: null, after: now });
    else if (now === null) blocks.push({ index, change: 'removed', before: was, after: null });
    else if (canonical(was) !== canonical(now)) blocks.push({ index, change: 'changed', before: was, after: now });
  }
  return { fields, blocks };
}
