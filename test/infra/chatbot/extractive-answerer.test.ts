import t from 'tap';
import { ExtractiveAnswerer, sentences } from '../../../infra/answerer/extractive.js';
import { NO_ANSWER } from '../../../infra/answerer/port.js';
import { withMarkers } from '../../../infra/answerer/cohere.js';

const evidence = [
  { number: 1, title: 'Reading room', text: 'The reading room is on the second floor. It opens at nine on weekdays and at ten on Saturdays.' },
  { number: 2, title: 'Violin', text: 'This violin was made by Antonio Stradivari in Cremona in 1715. It was donated in 1950.' },
  { number: 3, title: 'Map of Lisbon', text: 'An engraved map of Lisbon. It shows the city before the earthquake of 1755.' },
];

t.test('picks the sentences that answer and cites where each came from', async (t) => {
  const answerer = new ExtractiveAnswerer();
  const answer = await answerer.answer({ question: 'Who made the violin and where?', evidence });
  t.match(answer, /made by Antonio Stradivari in Cremona in 1715\. \[2\]/);
  t.notMatch(answer, /\[1\]|\[3\]/, 'unrelated evidence is not cited');

  const hours = await answerer.answer({ question: 'When does the reading room open on Saturdays?', evidence });
  t.match(hours, /It opens at nine on weekdays and at ten on Saturdays\. \[1\]/);

  const quake = await answerer.answer({ question: 'earthquake', evidence: [...evidence].reverse().map((e, i) => ({ ...e, number: i + 1 })) });
  t.match(quake, /earthquake of 1755\. \[1\]/, 'the citation is the number the evidence was given');
});

t.test('says plainly when the evidence does not answer', async (t) => {
  const answerer = new ExtractiveAnswerer();
  t.equal(await answerer.answer({ question: 'What is the capital of Peru?', evidence }), NO_ANSWER);
  t.equal(await answerer.answer({ question: 'violin', evidence: [] }), NO_ANSWER);
  t.equal(await answerer.answer({ question: 'what is the', evidence }), NO_ANSWER, 'stopwords only');
});

t.test('sentence splitting', async (t) => {
  t.same(sentences('First one. Second one!\nThird line? 1750 was a year.'), ['First one.', 'Second one!', 'Third line?', '1750 was a year.']);
  t.same(sentences('Dr. smith e.g. here'), ['Dr. smith e.g. here'], 'no split before a lower-case word');
});

t.test('Cohere citations become [N] markers after the cited span', async (t) => {
  t.equal(
    withMarkers('Stradivari made it. It opens at nine.', [
      { end: 19, documentIds: ['2'] },
      { end: 37, documentIds: ['1', '3'] },
    ]),
    'Stradivari made it.[2] It opens at nine.[1][3]',
  );
  t.equal(withMarkers('Already cited [1].', [{ end: 5, documentIds: ['2'] }]), 'Already cited [1].');
});
