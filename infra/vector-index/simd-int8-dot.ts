/**
 * Integer dot products of one quantised query against many quantised stored vectors, in
 * WebAssembly SIMD. Stored vectors are int8 (a quarter of the bytes of float32, so a scan reads a
 * quarter of the memory); the query is given already widened to int16, which saves widening it
 * again for every stored vector. Products of int8 codes in [-127, 127] and their int32 sums are
 * exact, so the kernel's results are exact integers: the only error in the caller's approximate
 * scores is quantisation, which the caller bounds.
 *
 * The module is written out byte by byte below: no build step, no dependency.
 * `dots(query, base, count, stride, out)` reads `count` vectors of `stride` int8 codes from byte
 * offset `base`, and writes each one's dot product with the `stride` int16 codes at byte offset
 * `query` as an int32 at `out`. `stride` must be a multiple of 16 (pad the codes with zeros).
 */
const simd = (op: number) => [0xfd, ...leb(op)];
const V128_LOAD = (offset: number) => [...simd(0x00), 0x04, ...leb(offset)];
const I16X8_EXTEND_LOW_I8X16_S = simd(0x87);
const I16X8_EXTEND_HIGH_I8X16_S = simd(0x88);
const I32X4_DOT_I16X8_S = simd(0xba);
const I32X4_ADD = simd(0xae);
const I32X4_EXTRACT_LANE = (lane: number) => [...simd(0x1b), lane];
const V128_ZERO = [...simd(0x0c), ...new Array<number>(16).fill(0)];
const I32_ADD = 0x6a;
const I32_AND = 0x71;
const I32_SHL = 0x74;
const I32_GE_U = 0x4f;
const I32_STORE = [0x36, 0x02, 0x00];
const get = (local: number) => [0x20, local];
const set = (local: number) => [0x21, local];
const tee = (local: number) => [0x22, local];
const i32 = (value: number) => [0x41, ...signedLeb(value)];
const add = (local: number, value: number) => [...get(local), ...i32(value), I32_ADD, ...set(local)];
const breakIf = (condition: number[]) => [...condition, 0x0d, 0x01];
const loop = (content: number[]) => [0x02, 0x40, 0x03, 0x40, ...content, 0x0c, 0x00, 0x0b, 0x0b];

// Locals: 0 query, 1 base, 2 count, 3 stride, 4 out (params); 5 n, 6 p, 7 q, 8 vectorEnd,
// 9 blocksEnd (i32); 10-13 four accumulators, 14 the 16 stored codes being worked on (v128).
const [N, P, Q, VECTOR_END, BLOCKS_END] = [5, 6, 7, 8, 9];
const ACC = [10, 11, 12, 13];
const CODES = 14;
/** Bytes of stored codes per unrolled block: four steps of 16. */
const BLOCK = 64;

/**
 * acc += the dot product of the 16 stored codes at p + 16k with the 16 query codes at q + 32k:
 * widen the stored int8 to two int16 halves, multiply-add each with its query half into int32.
 */
const step = (k: number, acc: number) => [
  ...get(acc),
  ...get(P), ...V128_LOAD(16 * k), ...tee(CODES), ...I16X8_EXTEND_LOW_I8X16_S,
  ...get(Q), ...V128_LOAD(32 * k), ...I32X4_DOT_I16X8_S, ...I32X4_ADD,
  ...get(CODES), ...I16X8_EXTEND_HIGH_I8X16_S,
  ...get(Q), ...V128_LOAD(32 * k + 16), ...I32X4_DOT_I16X8_S, ...I32X4_ADD,
  ...set(acc),
];

const body = [
  0x02, 0x05, 0x7f, 0x05, 0x7b, // locals: n, p, q, vectorEnd, blocksEnd (i32); accumulators, codes (v128)
  ...get(1), ...set(P), // p = base: the vectors are contiguous, so p just runs on from one to the next
  ...i32(0), ...set(N),
  ...loop([ // over vectors
    ...breakIf([...get(N), ...get(2), I32_GE_U]),
    ...ACC.flatMap((a) => [...V128_ZERO, ...set(a)]),
    ...get(0), ...set(Q),
    ...get(P), ...get(3), I32_ADD, ...set(VECTOR_END),
    ...get(P), ...get(3), ...i32(-BLOCK), I32_AND, I32_ADD, ...set(BLOCKS_END),
    // Four independent sums over blocks of 64 codes keep the SIMD units busy...
    ...loop([
      ...breakIf([...get(P), ...get(BLOCKS_END), I32_GE_U]),
      ...step(0, ACC[0]), ...step(1, ACC[1]), ...step(2, ACC[2]), ...step(3, ACC[3]),
      ...add(P, BLOCK), ...add(Q, 2 * BLOCK),
    ]),
    // ...then 16 at a time for what a stride that is not a multiple of 64 leaves.
    ...loop([
      ...breakIf([...get(P), ...get(VECTOR_END), I32_GE_U]),
      ...step(0, ACC[0]),
      ...add(P, 16), ...add(Q, 32),
    ]),
    ...get(ACC[0]), ...get(ACC[1]), ...I32X4_ADD, ...get(ACC[2]), ...I32X4_ADD, ...get(ACC[3]), ...I32X4_ADD, ...set(ACC[0]),
    ...get(4), ...get(N), ...i32(2), I32_SHL, I32_ADD, // address out + n * 4
    ...[0, 1, 2, 3].flatMap((lane) => [...get(ACC[0]), ...I32X4_EXTRACT_LANE(lane)]), I32_ADD, I32_ADD, I32_ADD,
    ...I32_STORE,
    ...add(N, 1),
  ]),
  0x0b, // end of function
];

function section(id: number, content: number[]): number[] {
  return [id, ...leb(content.length), ...content];
}

function leb(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
}

/** i32.const takes a signed LEB128: the sign lives in bit 6 of the last byte. */
function signedLeb(value: number): number[] {
  const bytes: number[] = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    const done = (value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0);
    bytes.push(done ? byte : byte | 0x80);
    if (done) return bytes;
  }
}

const ascii = (text: string) => [text.length, ...[...text].map((c) => c.charCodeAt(0))];

const MODULE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, [0x01, 0x60, 0x05, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00]),
  ...section(2, [0x01, ...ascii('env'), ...ascii('memory'), 0x02, 0x00, 0x00]),
  ...section(3, [0x01, 0x00]),
  ...section(7, [0x01, ...ascii('dots'), 0x00, 0x00]),
  ...section(10, [0x01, ...leb(body.length), ...body]),
]);

export type Int8DotsKernel = (query: number, base: number, count: number, stride: number, out: number) => void;

/** The kernel bound to a memory, or null where WebAssembly SIMD is not available. */
export function simdInt8Dots(memory: WebAssembly.Memory): Int8DotsKernel | null {
  try {
    if (!WebAssembly.validate(MODULE)) return null;
    const instance = new WebAssembly.Instance(new WebAssembly.Module(MODULE), { env: { memory } });
    return instance.exports.dots as Int8DotsKernel;
  } catch {
    return null;
  }
}
