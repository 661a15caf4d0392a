import Fastify from 'fastify';
import { readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { parseCheckedOrThrow } from '../infra/checked-json.js';

/**
 * The read baseline: a bare Fastify route answering the bytes the real route answered, with
 * the same content type and headers. Run as its own process, like the real server.
 */
const [bodyFile, headersFile] = process.argv.slice(2);
if (!bodyFile || !headersFile) throw new Error('usage: bare-server.ts BODY_FILE HEADERS_JSON_FILE');
const body = readFileSync(bodyFile);
const headers = parseCheckedOrThrow(
  Type.Record(Type.String(), Type.String()),
  readFileSync(headersFile, 'utf8'),
  headersFile,
);
const app = Fastify({ logger: false });
app.get('/*', async (_request, reply) => reply.headers(headers).send(body));
await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 0) });
