import t from 'tap';
import { ExtractiveAnswerer, sentences } from '../../../infra/answerer/extractive.js';
import { isQuotable } from '../../../infra/answerer/evidence-sentences.js';
import { NO_ANSWER } from '../../../infra/answerer/port.js';
import { withMarkers } from '../../../infra/answerer/cohere.js';
import { HybridEmbedder } from '../../../infra/embedder/hybrid.js';

const evidence = [
  {
    number: 1,
    title: 'Reading room',
    text: 'The reading room is on the second floor. It opens at nine on weekdays and at ten on Saturdays.',
  },
  {
    number: 2,
    title: 'Violin',
    text: 'This violin was made by Antonio Stradivari in Cremona in 1715. It was donated in 1950.',
  },
  {
    number: 3,
    title: 'Map of Lisbon',
    text: 'An engraved map of Lisbon. It shows the city before the earthquake of 1755.',
  },
];

/** A blog post as the index holds it: its text, then its tags as a metadata line. */
const newsPost = {
  number: 1,
  title: 'Opening hours over the holidays',
  text: 'The museum closes early on Christmas Eve and stays closed on Christmas Day.\nTitle: Opening hours over the holidays\nTags: opening hours, news',
};

t.test('word mode: picks the sentences that answer and cites where each came from', async (t) => {
  const answerer = new ExtractiveAnswerer();
  const answer = await answerer.answer({ question: 'Who made the violin and where?', evidence });
  t.match(answer, /made by Antonio Stradivari in Cremona in 1715\. \[2\]/);
  t.notMatch(answer, /\[1\]|\[3\]/, 'unrelated evidence is not cited');

  const hours = await answerer.answer({ question: 'When does the reading room open on Saturdays?', evidence });
  t.match(hours, /It opens at nine on weekdays and at ten on Saturdays\. \[1\]/);

  const quake = await answerer.answer({
    question: 'earthquake',
    evidence: [...evidence].reverse().map((e, i) => ({ ...e, number: i + 1 })),
  });
  t.match(quake, /earthquake of 1755\. \[1\]/, 'the citation is the number the evidence was given');

  const tagged = await answerer.answer({ question: 'opening hours news tags title', evidence: [newsPost] });
  t.notMatch(tagged, /Tags:|Title:/, 'no metadata line is quoted');
});

t.test('word mode: says plainly when the evidence does not answer', async (t) => {
  const answerer = new ExtractiveAnswerer();
  t.equal(await answerer.answer({ question: 'What is the capital of Peru?', evidence }), NO_ANSWER);
  t.equal(await answerer.answer({ question: 'violin', evidence: [] }), NO_ANSWER);
  t.equal(await answerer.answer({ question: 'what is the', evidence }), NO_ANSWER, 'stopwords only');
});

t.test('with the sentence model', async (t) => {
  // One model thread for the file: loading it costs about a second.
  const embedder = new HybridEmbedder();
  t.teardown(() => embedder.close());
  const answerer = new ExtractiveAnswerer(embedder);

  t.test('picks sentences by meaning, in other words than the question', async (t) => {
    const answer = await answerer.answer({ question: 'Who was the maker of this stringed instrument?', evidence });
    t.match(answer, /made by Antonio Stradivari in Cremona in 1715\. \[2\]/);
    t.notMatch(answer, /\[1\]|\[3\]/, 'unrelated evidence is not cited');
    const quake = await answerer.answer({
      question: 'What did the Portuguese capital look like before the disaster?',
      evidence,
    });
    t.match(quake, /\[3\]/);
    t.notMatch(quake, /\[1\]|\[2\]/);
  });

  t.test('never quotes a metadata line', async (t) => {
    const answer = await answerer.answer({
      question: 'What are the opening hours at Christmas? news',
      evidence: [newsPost],
    });
    t.match(answer, /closes early on Christmas Eve.* \[1\]/);
    t.notMatch(answer, /Tags:|Title:/);
  });

  t.test('says plainly when the evidence does not answer', async (t) => {
    // The case of the issue: opening hours and tags were quoted for a question about music.
    t.equal(
      await answerer.answer({
        question: 'Do you have any music from New Orleans?',
        evidence: [newsPost, ...evidence.slice(0, 1)],
      }),
      NO_ANSWER,
    );
    for (const question of [
      'How do I reset my router password?',
      'What is the recipe for lasagne?',
      'Can you recommend a good dentist?',
    ]) {
      t.equal(await answerer.answer({ question, evidence }), NO_ANSWER, question);
    }
    t.equal(await answerer.answer({ question: 'violin', evidence: [] }), NO_ANSWER);
  });
});

t.test('what may be quoted', async (t) => {
  t.notOk(isQuotable('Tags: opening hours, news'));
  t.notOk(isQuotable('Title: Map of Lisbon'));
  t.notOk(isQuotable('Date created: 1920'));
  t.notOk(isQuotable('Read more about our events'));
  t.notOk(isQuotable('Share this'));
  t.notOk(isQuotable('Materials: oak, brass, gilt'), 'an unknown label with a list of terms');
  t.ok(isQuotable('Note: the reading room is closed on Mondays.'), 'an unknown label with a sentence');
  t.ok(isQuotable('It opens at nine.'));
  t.ok(isQuotable('The museum opens at ten every day except Monday.'));
});

t.test('sentence splitting', async (t) => {
  t.same(sentences('First one. Second one!\nThird line? 1750 was a year.'), [
    'First one.',
    'Second one!',
    'Third line?',
    '1750 was a year.',
  ]);
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
