import { createRequire } from 'node:module';
import { crc32 } from 'node:zlib';

const require = createRequire(import.meta.url);

/**
 * archiver computes each entry's zip CRC-32 with the pure-JavaScript `crc-32` package, which
 * costs more than deflate level 1 saves on stored entries. Node's zlib.crc32 (Node 20.15+)
 * gives the same value several times faster, so the package's buf() is pointed at it; the
 * package returns a signed 32-bit integer and its callers apply `>>> 0`, so this does too.
 */
export function useNativeCrc32(): void {
  if (typeof crc32 !== 'function') return;
  // require() answers any: the cast names the two members of crc-32's CommonJS export used here.
  const js = require('crc-32') as { buf(data: Uint8Array, seed?: number): number; nativeCrc32?: boolean };
  if (js.nativeCrc32) return;
  js.buf = (data, seed = 0) => crc32(data, seed >>> 0) | 0;
  js.nativeCrc32 = true;
}
