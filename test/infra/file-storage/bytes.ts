import type { Readable } from 'node:stream';

/** Bytes whose every offset holds a value of its own kind: a shifted or misplaced chunk shows. */
export function patterned(length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + Math.floor(i / 251)) & 0xff;
  return bytes;
}

/** Everything a stream gives, as one buffer. */
export async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(Buffer.isBuffer(part) ? part : Buffer.from(String(part)));
  return Buffer.concat(parts);
}
