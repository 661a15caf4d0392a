import { Type } from '@sinclair/typebox';

export const TAG = 'asset library';

/** The asset library knows only the login session cookie (OpenAPI security requirement). */
export const SESSION_SECURITY = [{ session: [] }];

const Success = Type.Literal('success');
export const ErrorEnvelope = Type.Object(
  { status: Type.Literal('error'), message: Type.String() },
  { description: 'Every refusal: a message that says why.' },
);

/** The error statuses every asset library route may answer with (401 without a session, 403 for a role without access). */
export const errorResponses = { 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope };

export const FolderSchema = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  slug: Type.String(),
  parent_id: Type.Union([Type.Integer(), Type.Null()]),
  asset_count: Type.Integer({ description: 'Assets filed directly in this folder.' }),
  children: Type.Array(Type.Unknown(), { description: 'Subfolders, each of this same shape (a tree).' }),
});

export const AssetSchema = Type.Object({
  id: Type.Integer(),
  filename: Type.String({ description: "The uploaded file's sanitised name." }),
  mime_type: Type.String({ description: "Sniffed from the file's content." }),
  canonical_url: Type.String({ description: 'Absolute URL answering with the file.' }),
  created_at: Type.Union([Type.String(), Type.Null()], { description: '`YYYY-MM-DD HH:MM:SS` (UTC).' }),
  metadata: Type.Object({ title: Type.String(), alt: Type.String() }),
  folders: Type.Array(Type.Integer()),
});

export const UsageSchema = Type.Object({
  id: Type.Integer(),
  asset_id: Type.Integer(),
  context_type: Type.String(),
  context_id: Type.Union([Type.Integer(), Type.Null()]),
  user_id: Type.Union([Type.Integer(), Type.Null()]),
  created_at: Type.String({ description: '`YYYY-MM-DD HH:MM:SS` (UTC).' }),
});

export const FolderEnvelope = Type.Object({ status: Success, folder: FolderSchema });
export const FoldersEnvelope = Type.Object({ status: Success, folders: Type.Array(FolderSchema) });
export const AssetEnvelope = Type.Object({ status: Success, asset: AssetSchema });
export const AssetsEnvelope = Type.Object({ status: Success, assets: Type.Array(AssetSchema) });
export const AssetPageEnvelope = Type.Object({
  status: Success,
  assets: Type.Array(AssetSchema),
  total: Type.Integer(),
  page: Type.Integer(),
  per_page: Type.Integer(),
});
export const UsageEnvelope = Type.Object({ status: Success, usage: UsageSchema });
export const UsageListEnvelope = Type.Object({ status: Success, usage: Type.Array(UsageSchema) });
export const DeletedEnvelope = Type.Object({ status: Success, deleted: Type.Array(Type.Integer()) });
export const MessageEnvelope = Type.Object({ status: Success, message: Type.String() });

export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

export const AssetListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  per_page: Type.Optional(
    Type.Integer({ minimum: 1, default: 24, description: 'Values above 100 are treated as 100.' }),
  ),
  sort_by: Type.Optional(Type.Union([Type.Literal('id'), Type.Literal('name')], { default: 'id' })),
  sort_order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' })),
  folder_id: Type.Optional(
    Type.String({ pattern: '^[0-9]*$', description: 'Only assets in this folder (empty: every asset).' }),
  ),
  search: Type.Optional(
    Type.String({ maxLength: 255, description: 'Case-insensitive substring of the name (metadata.title).' }),
  ),
});

/**
 * Documents a multipart form in the OpenAPI reference. The body is read as a stream by the
 * route (request.body stays empty), so the schema also accepts null and validates nothing else.
 */
export function multipartForm(
  properties: Record<string, { type: string; format?: string; description: string }>,
  required: string[],
) {
  return {
    content: {
      'multipart/form-data': {
        schema: { type: ['object', 'null'], properties, required },
      },
    },
  };
}
