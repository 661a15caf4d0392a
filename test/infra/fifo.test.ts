import t from 'tap';
import { Fifo } from '../../infra/fifo.js';

t.test('items come out in the order they went in, across compactions', async (t) => {
  const fifo = new Fifo<number>();
  const out: number[] = [];
  let next = 0;
  // Interleave pushes and takes so the taken prefix is dropped several times.
  for (let round = 0; round < 50; round++) {
    for (let i = 0; i < 300; i++) fifo.push(next++);
    for (let i = 0; i < 250; i++) out.push(fifo.take() as number);
  }
  t.equal(fifo.length, 50 * 300 - 50 * 250);
  while (fifo.length > 0) out.push(fifo.take() as number);
  t.same(
    out,
    Array.from({ length: next }, (_, i) => i),
  );
  t.equal(fifo.take(), undefined, 'empty');
  fifo.push(7);
  t.equal(fifo.take(), 7, 'usable after running empty');
});
