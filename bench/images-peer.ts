import { createReadStream, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { IIIFError, Processor } from 'iiif-processor';
import { Type, type Static } from '@sinclair/typebox';
import { parseCheckedOrThrow } from '../infra/checked-json.js';

/**
 * The images benchmark's peer (bench/images.ts): Samvera's iiif-processor, the Node IIIF Image
 * API server on sharp, behind a bare node:http server, as its README and TinyIIIF example use
 * it. Each request is a `Processor` over a stream of the source file (no cache, no pyramid:
 * iiif-processor has neither); the dimension function answers the size the bench measured
 * once, as the README advises, so an info.json never reads the file. Image API 3.0 only, at
 * `/iiif/3/{id}/...`; `/health` answers the start probe. Run as its own process, on PORT.
 */

const PeerSourceSchema = Type.Object({ path: Type.String(), width: Type.Number(), height: Type.Number() });
export type PeerSource = Static<typeof PeerSourceSchema>;

/** argv[2]: a JSON file of the sources it serves, by IIIF id (a file name). */
const PeerManifestSchema = Type.Object({ files: Type.Record(Type.String(), PeerSourceSchema) });
export type PeerManifest = Static<typeof PeerManifestSchema>;

const manifestFile = process.argv[2];
if (!manifestFile) throw new Error('usage: images-peer.ts MANIFEST_JSON');
const manifest = parseCheckedOrThrow(PeerManifestSchema, readFileSync(manifestFile, 'utf8'), manifestFile);
const files = new Map(Object.entries(manifest.files));
const port = Number(process.env.PORT ?? 0);
const host = process.env.HOST ?? '127.0.0.1';
const PREFIX = /^\/iiif\/3\/([^/?]+)/;

function answer(res: ServerResponse, status: number, type: string, body: Buffer | string): void {
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    'Access-Control-Allow-Origin': '*',
  });
  res.end(body);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  if (url === '/health') return answer(res, 200, 'text/plain', 'ok');
  const id = PREFIX.exec(url)?.[1];
  const source = id === undefined ? undefined : files.get(decodeURIComponent(id));
  if (req.method !== 'GET' || !source) return answer(res, 404, 'text/plain', 'Not found');
  const processor = new Processor(`http://${host}:${port}${url}`, async () => createReadStream(source.path), {
    dimensionFunction: async () => ({ width: source.width, height: source.height }),
  });
  const result = await processor.execute();
  if (result.type === 'content') return answer(res, 200, result.contentType, result.body);
  if (result.type === 'redirect') {
    res.writeHead(302, { Location: result.location });
    res.end();
    return;
  }
  answer(res, result.statusCode, 'text/plain', result.message);
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    const status = error instanceof IIIFError ? (error.statusCode ?? 500) : 500;
    if (!res.headersSent) answer(res, status, 'text/plain', error instanceof Error ? error.message : String(error));
    else res.destroy();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, host);
