import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { json, sessionFor, type RoleName } from '../../helper.js';

export type Part =
  { name: string; value: string } | { name: string; filename: string; content: Buffer | string; contentType?: string };

/** A multipart/form-data body built by hand, so tests control every byte (hostile names included). */
export function multipart(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----assettest${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    if ('value' in part) {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`));
    } else {
      chunks.push(
        Buffer.from(
          `Content-Disposition: form-data; name="${part.name}"; filename="${part.filename.replace(/"/g, '\\"')}"\r\n` +
            `Content-Type: ${part.contentType ?? 'application/octet-stream'}\r\n\r\n`,
        ),
      );
      chunks.push(Buffer.isBuffer(part.content) ? part.content : Buffer.from(part.content));
      chunks.push(Buffer.from('\r\n'));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** The smallest valid PNG (1x1), so sniffing has real magic bytes to find. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
/** A minimal GIF, for "same extension, different content" and "different extension" cases. */
export const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
export const SVG_WITH_SCRIPT =
  '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>document.title="pwned";fetch("/pwned")</script><rect width="10" height="10"/></svg>';

export interface AssetJson {
  id: number;
  filename: string;
  mime_type: string;
  canonical_url: string;
  created_at: string | null;
  metadata: { title: string; alt: string };
  folders: number[];
}

export interface FolderJson {
  id: number;
  title: string;
  slug: string;
  parent_id: number | null;
  asset_count: number;
  children: FolderJson[];
}

/** Session cookies for every role, logged in once per app. */
export async function sessions(app: FastifyInstance): Promise<Record<RoleName, string>> {
  const roles: RoleName[] = ['global_admin', 'site_admin', 'editor', 'reviewer', 'author', 'researcher'];
  const cookies = {} as Record<RoleName, string>;
  for (const role of roles) cookies[role] = await sessionFor(app, role);
  return cookies;
}

export async function upload(
  app: FastifyInstance,
  cookie: string,
  file: { filename: string; content: Buffer | string; field?: string },
  fields: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const body = multipart([
    ...Object.entries(fields).map(([name, value]) => ({ name, value })),
    { name: file.field ?? 'file[0]', filename: file.filename, content: file.content },
  ]);
  return app.inject({
    method: 'POST',
    url: '/api/asset-picker/assets',
    headers: { ...body.headers, cookie },
    payload: body.payload,
  });
}

export async function uploaded(
  app: FastifyInstance,
  cookie: string,
  filename: string,
  content: Buffer | string,
  fields: Record<string, string> = {},
): Promise<AssetJson> {
  const res = await upload(app, cookie, { filename, content }, fields);
  if (res.statusCode !== 201) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  return json<{ asset: AssetJson }>(res).asset;
}

/** The path part of a canonical_url, for app.inject. */
export function pathOf(url: string): string {
  return new URL(url).pathname;
}
