import { Type, type Static } from '@sinclair/typebox';

/**
 * The asset library's write bodies: the routes validate them (routes/assets/), the handlers take
 * their types (folder-handlers.ts, asset-handlers.ts), so a field is declared once. The schema
 * checks shape; the handlers and deciders check what a value means (a folder that exists, a
 * title that is not blank). An upload's form is read as a stream (routes/http/multipart-upload.ts).
 */

/**
 * `type: [integer, null]` rather than a union: with type coercion on, a union's integer branch
 * would turn null into 0 (and its null branch 0 into null) before the other branch is tried.
 */
const NullableId = Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 1 });
const NullableInteger = Type.Unsafe<number | null>({ type: ['integer', 'null'] });

/** POST /api/asset-picker/folders: no `parent_id` (or null) is a top-level folder. */
export const FolderCreateBody = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 255 }),
  parent_id: Type.Optional(NullableId),
});
export type CreateFolderInput = Static<typeof FolderCreateBody>;

/** PUT /api/asset-picker/folders/{id}: absent keys keep their value. */
export const FolderUpdateBody = Type.Object({
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  parent_id: Type.Optional(NullableId),
});
export type UpdateFolderInput = Static<typeof FolderUpdateBody>;

/** PATCH /api/asset-picker/assets/bulk: changes to every asset named, or their deletion. */
export const BulkBody = Type.Object({
  ids: Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, maxItems: 1000 }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  alt_text: Type.Optional(Type.String({ maxLength: 1000 })),
  folder_id: Type.Optional(NullableId),
  action: Type.Optional(Type.Literal('delete')),
});
export type BulkInput = Static<typeof BulkBody>;

/** POST /api/asset-picker/assets/{id}/usage: no `context_id` is null. */
export const UsageBody = Type.Object({
  context_type: Type.String({ minLength: 1, maxLength: 100 }),
  context_id: Type.Optional(NullableInteger),
});
export type UsageInput = Static<typeof UsageBody>;
