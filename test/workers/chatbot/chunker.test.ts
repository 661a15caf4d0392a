import t from 'tap';
import { chunkText } from '../../../workers/chatbot/chunker.js';

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

t.test('short text is one chunk; empty text none', async (t) => {
  t.same(chunkText('A short   description.'), ['A short description.']);
  t.same(chunkText('   \n  '), []);
});

t.test('windows overlap by the given number of words and cover every word', async (t) => {
  const chunks = chunkText(words(25), { size: 10, overlap: 3 });
  t.same(
    chunks.map((c) => c.split(' ')[0]),
    ['w0', 'w7', 'w14', 'w21'],
  );
  for (const chunk of chunks.slice(0, -1)) t.equal(chunk.split(' ').length, 10);
  t.same(chunks[0].split(' ').slice(-3), chunks[1].split(' ').slice(0, 3), 'the next chunk repeats the last 3 words');
  const covered = new Set(chunks.flatMap((c) => c.split(' ')));
  t.equal(covered.size, 25, 'every word is in some chunk');
  t.equal(chunks.at(-1)?.split(' ').at(-1), 'w24');
});

t.test('a text of exactly one window is not split', async (t) => {
  t.equal(chunkText(words(10), { size: 10, overlap: 3 }).length, 1);
  t.equal(chunkText(words(11), { size: 10, overlap: 3 }).length, 2);
});

t.test('line breaks survive inside a chunk (sentence boundaries), other whitespace is collapsed', async (t) => {
  t.same(chunkText('First line\n\n  second\tline'), ['First line\nsecond line']);
});

t.test('refuses an overlap as large as the window', async (t) => {
  t.throws(() => chunkText('a b c', { size: 3, overlap: 3 }));
});
