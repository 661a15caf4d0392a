import { Type, type Static } from '@sinclair/typebox';
import { creatable, optional, renamed } from '../../infra/schema/record-fields.js';
import { AssetDetails, AssetFolderFields, NullableId } from '../../contracts/assets/fields.js';

/**
 * The asset library's write bodies, derived from the records' fields (fields.ts): the routes
 * validate them (routes/assets/), the handlers take their types (folder-handlers.ts,
 * asset-handlers.ts), so a field is declared once. The schema checks shape; the handlers and
 * deciders check what a value means (a folder that exists, a title that is not blank). An
 * upload's form is read as a stream (routes/http/multipart-upload.ts).
 */
const NullableInteger = Type.Unsafe<number | null>({ type: ['integer', 'null'] });

/** What a folder's writes may set: not its slug, which is made from its title. */
const { slug: _slug, ...folderBodyProperties } = AssetFolderFields.properties;

/** POST /api/asset-picker/folders: no `parent_id` (or null) is a top-level folder. */
export const FolderCreateBody = Type.Object(creatable(folderBodyProperties));
export type CreateFolderInput = Static<typeof FolderCreateBody>;

/** PUT /api/asset-picker/folders/{id}: absent keys keep their value. */
export const FolderUpdateBody = Type.Object(optional(folderBodyProperties));
export type UpdateFolderInput = Static<typeof FolderUpdateBody>;

/** The bulk body's names of an asset's details (the seed's); a detail not named here keeps its own. */
export const BULK_NAMES = { title: 'name', alt: 'alt_text' } as const;

/** PATCH /api/asset-picker/assets/bulk: changes to every asset named (only the keys present), or their deletion. */
export const BulkBody = Type.Object({
  ids: Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, maxItems: 1000 }),
  ...renamed(optional(AssetDetails.properties), BULK_NAMES),
  folder_id: Type.Optional(NullableId),
  action: Type.Optional(Type.Literal('delete')),
});
export type BulkInput = Static<typeof BulkBody>;
/** The changes a bulk body may carry (`folder_id: null`: out of every folder); its ids and action are the route's. */
export type BulkChanges = Omit<BulkInput, 'ids' | 'action'>;

/** POST /api/asset-picker/assets/{id}/usage: no `context_id` is null. */
export const UsageBody = Type.Object({
  context_type: Type.String({ minLength: 1, maxLength: 100 }),
  context_id: Type.Optional(NullableInteger),
});
export type UsageInput = Static<typeof UsageBody>;
