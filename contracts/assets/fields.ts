import { Type, type Static } from '@sinclair/typebox';
import { withDefault } from '../../infra/schema/record-fields.js';

/**
 * The asset library's records, each field declared once: what the events carry (events.ts),
 * what the read models keep (projections/assets/), and, derived from these, the write bodies
 * (schemas.ts) and a new record's defaults (`default`, filled in by fieldsOf,
 * infra/schema/record-fields.ts). The representations (routes/assets/) say what a response
 * shows. The annotations (limits) are those the API documents for the write bodies.
 */
/** The limits the rules (rules.ts) hold titles and alt texts to; the write bodies document them. */
export const MAX_TITLE_LENGTH = 255;
export const MAX_ALT_LENGTH = 1000;

const Id = Type.Integer({ minimum: 1 });

/**
 * `type: [integer, null]` rather than a union: with type coercion on, a union's integer branch
 * would turn null into 0 (and its null branch 0 into null) before the other branch is tried.
 */
export const NullableId = Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 1 });

/** A file as stored: what the read side and the file route need, so nothing reads the file to know it. */
export const AssetFile = Type.Object({
  stored_name: Type.String(),
  /** The uploaded file's sanitised name. */
  filename: Type.String(),
  /** Lower-case extension without the dot ('' when the name has none). */
  extension: Type.String(),
  mime_type: Type.String(),
  size: Type.Integer(),
  sha256: Type.String(),
});
export type AssetFile = Static<typeof AssetFile>;

/**
 * What describes an asset: an upload sets them (the title from the form), a details change
 * changes those it carries (AssetDetailsChanged), each on its own. The bulk route names some
 * of them its own way (BULK_NAMES, schemas.ts).
 */
export const AssetDetails = Type.Object({
  title: Type.String({ minLength: 1, maxLength: MAX_TITLE_LENGTH }),
  alt: withDefault(Type.String({ maxLength: MAX_ALT_LENGTH }), ''),
});
export type AssetDetails = Static<typeof AssetDetails>;

/** An asset as its uploaded event carries it beside the id. */
export const AssetFields = Type.Object({
  file: AssetFile,
  ...AssetDetails.properties,
  folder_ids: withDefault(Type.Array(Id), []),
});
export type AssetFields = Static<typeof AssetFields>;

/** A folder as its created event carries it beside the id; the slug is made from the title. */
export const AssetFolderFields = Type.Object({
  title: Type.String({ minLength: 1, maxLength: MAX_TITLE_LENGTH }),
  slug: Type.String(),
  /** No parent: a top-level folder. */
  parent_id: withDefault(NullableId, null),
});
export type AssetFolderFields = Static<typeof AssetFolderFields>;
