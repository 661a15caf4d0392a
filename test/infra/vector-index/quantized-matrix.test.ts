import t from 'tap';
import { QuantizedMatrix, quantizeInto } from '../../../infra/vector-index/quantized-matrix.js';

t.test("a vector's largest component becomes +-127, the rest in proportion; a zero vector stays zero", async (t) => {
  const codes = new Int8Array(8);
  quantizeInto(Float32Array.from([0.5, -1, 0.25, 0]), codes, 0);
  quantizeInto(new Float32Array(4), codes, 4);
  t.same([...codes], [64, -127, 32, 0, 0, 0, 0, 0]);
});

t.test('rows are set, overwritten, swap-removed and grown; nearest gives ids by cosine', async (t) => {
  const dimension = 4;
  const axis = (i: number, length = 1) => Float32Array.from({ length: dimension }, (_, j) => (j === i ? length : 0));
  const matrix = new QuantizedMatrix(dimension, 1);
  matrix.set(10, axis(0));
  matrix.set(11, axis(1, 5));
  matrix.set(12, axis(2));
  matrix.set(13, Float32Array.from([1, 1, 0, 0]));
  t.equal(matrix.rows, 4, 'grown past its first capacity');
  const { ids, distances } = matrix.nearest(axis(0), 2);
  t.same(ids, [10, 13]);
  t.ok(
    Math.abs(distances[0]) < 1e-6 && Math.abs(distances[1] - (1 - Math.SQRT1_2)) < 1e-3,
    "with the codes' cosine distances",
  );
  t.same(matrix.nearest(axis(1), 1).ids, [11], "a vector's length does not count");
  matrix.delete(10);
  matrix.delete(10);
  t.equal(matrix.rows, 3, 'deleting twice is fine');
  t.same(matrix.nearest(axis(0), 3).ids.slice(0, 1), [13], 'the deleted row is gone');
  matrix.set(12, axis(0));
  t.equal(matrix.rows, 3, 'setting a known id overwrites its row');
  t.same(matrix.nearest(axis(0), 1).ids, [12]);
  t.same(matrix.nearest(axis(3), 10).ids.sort(), [11, 12, 13], 'no more ids than rows');
  for (const id of [11, 12, 13]) matrix.delete(id);
  t.same(matrix.nearest(axis(0), 5).ids, [], 'an empty matrix finds nothing');
  t.throws(() => matrix.set(1, new Float32Array(3)), /dimension 3/);
});

t.test(
  "a vector given as the hex text of its float32 bytes (SQLite's hex(vector)) gets the code set() gives it",
  async (t) => {
    const dimension = 3;
    const vector = Float32Array.from([0.25, -2, 1.5]);
    const hex = Buffer.from(vector.buffer).toString('hex').toUpperCase();
    const byHex = new QuantizedMatrix(dimension);
    const bySet = new QuantizedMatrix(dimension);
    t.equal(byHex.setFromHex(7, hex), true);
    bySet.set(7, vector);
    t.equal(byHex.rows, 1);
    const query = Float32Array.from([1, -1, 0.5]);
    t.same(byHex.nearest(query, 1), bySet.nearest(query, 1), 'same id, same distance');
    t.equal(byHex.setFromHex(8, hex.slice(0, -8)), false, 'a vector of another dimension is refused');
    t.equal(byHex.setFromHex(9, `${hex.slice(0, -2)}ZZ`), false, 'text that is not hex is refused');
    t.equal(byHex.rows, 1, 'and nothing refused was set');
  },
);
