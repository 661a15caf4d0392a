import t from 'tap';
import type { Client } from '@elastic/elasticsearch';
import { CohereClient, CohereError } from 'cohere-ai';
import { CohereAnswerer } from '../../../infra/answerer/cohere.js';
import { DEFAULT_SYSTEM_PROMPT } from '../../../infra/answerer/port.js';
import { CohereEmbedder } from '../../../infra/embedder/cohere.js';
import { DependencyUnavailableError } from '../../../infra/errors.js';
import { ElasticsearchVectorIndex } from '../../../infra/vector-index/elasticsearch.js';

// The providers' servers cannot run here: these stubs check what the adapters send and how they
// translate answers and failures. The shared contract tests run against the real services when
// ELASTICSEARCH_URL / COHERE_API_KEY are set.

t.test('Cohere embedder: input types, float embeddings, batches of 96, failures as 503', async (t) => {
  const calls: Record<string, unknown>[] = [];
  const client = {
    embed: async (request: Record<string, unknown>) => {
      calls.push(request);
      const texts = request.texts as string[];
      return { responseType: 'embeddings_by_type', id: 'x', embeddings: { float: texts.map(() => [0.6, 0.8]) } };
    },
  } as unknown as CohereClient;
  const embedder = new CohereEmbedder(client, 'embed-english-v3.0', 2);
  const vectors = await embedder.embed(
    Array.from({ length: 100 }, (_, i) => `text ${i}`),
    'document',
  );
  t.equal(vectors.length, 100);
  t.same(Array.from(vectors[0]), [Math.fround(0.6), Math.fround(0.8)]);
  t.same(
    calls.map((c) => (c.texts as string[]).length),
    [96, 4],
  );
  t.match(calls[0], { model: 'embed-english-v3.0', inputType: 'search_document', embeddingTypes: ['float'] });
  await embedder.embed(['question'], 'query');
  t.equal(calls[2].inputType, 'search_query');

  const failing = new CohereEmbedder(
    {
      embed: async () => {
        throw new CohereError({ message: 'invalid api token: secret-details', statusCode: 401 });
      },
    } as unknown as CohereClient,
    'm',
    2,
  );
  const error = await failing.embed(['x'], 'query').catch((e: unknown) => e);
  t.ok(error instanceof DependencyUnavailableError);
  t.equal((error as Error).message, 'The language model provider returned an error while embedding text (HTTP 401).');
});

t.test('Cohere answerer: evidence as documents, the system prompt as preamble, citations as [N]', async (t) => {
  const calls: Record<string, unknown>[] = [];
  const client = {
    chat: async (request: Record<string, unknown>) => {
      calls.push(request);
      return {
        text: 'Stradivari made it.',
        citations: [{ start: 0, end: 19, text: 'Stradivari made it.', documentIds: ['2'] }],
      };
    },
  } as unknown as CohereClient;
  const answerer = new CohereAnswerer(client, 'command-r-plus');
  const evidence = [
    { number: 1, title: 'Map', text: 'A map.' },
    { number: 2, title: 'Violin', text: 'Made by Stradivari.' },
  ];
  t.equal(await answerer.answer({ question: 'Who made it?', evidence }), 'Stradivari made it.[2]');
  t.match(calls[0], {
    message: 'Who made it?',
    preamble: DEFAULT_SYSTEM_PROMPT,
    documents: [
      { id: '1', title: 'Map', snippet: 'A map.' },
      { id: '2', title: 'Violin', snippet: 'Made by Stradivari.' },
    ],
  });
  await answerer.answer({ question: 'q', evidence, systemPrompt: 'Be brief.' });
  t.equal(calls[1].preamble, 'Be brief.', 'system_prompt replaces the default');
  const failing = new CohereAnswerer(
    {
      chat: async () => {
        throw new Error('socket hang up');
      },
    } as unknown as CohereClient,
    'm',
  );
  const error = await failing.answer({ question: 'q', evidence }).catch((e: unknown) => e);
  t.ok(error instanceof DependencyUnavailableError);
  t.equal((error as Error).message, 'The language model provider returned an error while answering.');
});

/** Drains an answerer's stream: its pieces and what it returned. */
async function drain(stream: AsyncGenerator<string, string>): Promise<{ pieces: string[]; answer: string }> {
  const pieces: string[] = [];
  for (;;) {
    const next = await stream.next();
    if (next.done) return { pieces, answer: next.value };
    pieces.push(next.value);
  }
}

t.test(
  'Cohere answerer streaming: chatStream text as it comes, the whole answer with markers at the end, failures as 503',
  async (t) => {
    const calls: { request: Record<string, unknown>; options: { abortSignal?: AbortSignal } }[] = [];
    const streamOf =
      (events: object[]) => async (request: Record<string, unknown>, options: { abortSignal?: AbortSignal }) => {
        calls.push({ request, options });
        return (async function* () {
          for (const event of events) yield event;
        })();
      };
    const ended = {
      eventType: 'stream-end',
      finishReason: 'COMPLETE',
      response: {
        text: 'Stradivari made it.',
        citations: [{ start: 0, end: 19, text: 'Stradivari made it.', documentIds: ['2'] }],
      },
    };
    const client = {
      chatStream: streamOf([
        { eventType: 'stream-start', generationId: 'g' },
        { eventType: 'text-generation', text: 'Stradivari ' },
        { eventType: 'citation-generation', citations: [] },
        { eventType: 'text-generation', text: 'made it.' },
        ended,
      ]),
    } as unknown as CohereClient;
    const evidence = [
      { number: 1, title: 'Map', text: 'A map.' },
      { number: 2, title: 'Violin', text: 'Made by Stradivari.' },
    ];
    const signal = new AbortController().signal;
    const answerer = new CohereAnswerer(client, 'command-r-plus');
    t.same(await drain(answerer.stream({ question: 'Who made it?', evidence, systemPrompt: 'Be brief.' }, signal)), {
      pieces: ['Stradivari ', 'made it.'],
      answer: 'Stradivari made it.[2]',
    });
    t.match(calls[0].request, {
      model: 'command-r-plus',
      message: 'Who made it?',
      preamble: 'Be brief.',
      documents: [{ id: '1' }, { id: '2', title: 'Violin', snippet: 'Made by Stradivari.' }],
    });
    t.equal(calls[0].options.abortSignal, signal, 'the request is aborted with the stream');

    const failingWith = async (chatStream: unknown) => {
      const error = await drain(
        new CohereAnswerer({ chatStream } as unknown as CohereClient, 'm').stream({ question: 'q', evidence }, signal),
      ).catch((e: unknown) => e);
      t.ok(error instanceof DependencyUnavailableError);
      return (error as Error).message;
    };
    t.equal(
      await failingWith(async () => {
        throw new CohereError({ message: 'too many requests: secret', statusCode: 429 });
      }),
      'The language model provider returned an error while answering (HTTP 429).',
      'a refused request',
    );
    t.equal(
      await failingWith(
        streamOf([
          { eventType: 'text-generation', text: 'Str' },
          { ...ended, finishReason: 'ERROR' },
        ]),
      ),
      'The language model provider returned an error while answering.',
      'an error finish',
    );
    t.equal(
      await failingWith(streamOf([{ eventType: 'text-generation', text: 'Str' }])),
      'The language model provider returned an error while answering.',
      'a stream cut short',
    );

    // Aborted: the provider's stream fails with the abort, which is no error of the provider's.
    const controller = new AbortController();
    const aborting = new CohereAnswerer(
      {
        chatStream: async (_request: unknown, options: { abortSignal: AbortSignal }) =>
          (async function* () {
            yield { eventType: 'text-generation', text: 'Str' };
            await new Promise((_resolve, reject) =>
              options.abortSignal.addEventListener('abort', () => reject(new Error('This operation was aborted'))),
            );
          })(),
      } as unknown as CohereClient,
      'm',
    );
    const stream = aborting.stream({ question: 'q', evidence }, controller.signal);
    t.same(await stream.next(), { value: 'Str', done: false });
    const rest = stream.next();
    controller.abort();
    t.same(await rest, { value: '', done: true }, 'it ends quietly');
  },
);

t.test('Elasticsearch index: dense_vector cosine mapping, kNN with filters, scores to distances', async (t) => {
  const calls: { api: string; request: Record<string, unknown> }[] = [];
  const record =
    (api: string, answer: unknown = {}) =>
    async (request: Record<string, unknown>) => {
      calls.push({ api, request });
      return answer;
    };
  const client = {
    indices: {
      putIndexTemplate: record('putIndexTemplate'),
      exists: record('exists', false),
      create: record('create'),
      refresh: record('refresh'),
      delete: record('delete'),
    },
    bulk: record('bulk', { errors: false }),
    count: record('count', { count: 2 }),
    search: async (request: Record<string, unknown>) => {
      calls.push({ api: 'search', request });
      // The listing of a resource's chunks: it had three, the replace below writes two.
      if (!request.knn)
        return { hits: { hits: ['item-1-0', 'item-1-1', 'item-1-2'].map((_id, i) => ({ _id, sort: [i] })) } };
      return {
        hits: {
          hits: [
            {
              _score: 1,
              _source: {
                resource_type: 'item',
                resource_id: 1,
                title: 'T',
                path: '/item/1',
                text: 'a',
                chunk_index: 0,
              },
            },
            {
              _score: 0.75,
              _source: {
                resource_type: 'media',
                resource_id: 2,
                title: 'M',
                path: '/media/2',
                text: 'b',
                chunk_index: 1,
              },
            },
          ],
        },
      };
    },
    close: async () => {},
  } as unknown as Client;
  const index = new ElasticsearchVectorIndex('http://es', 'chunks', client);
  await index.replace(
    { resourceType: 'item', resourceId: 1, title: 'T', path: '/item/1', siteIds: [1], itemSetIds: [10] },
    [
      { text: 'a', vector: Float32Array.from([1, 0, 0]) },
      { text: 'b', vector: Float32Array.from([0, 1, 0]) },
    ],
    'model-a',
  );
  const create = calls.find((c) => c.api === 'create')?.request as {
    mappings: { properties: Record<string, unknown> };
  };
  t.same(
    create.mappings.properties.vector,
    { type: 'dense_vector', dims: 3, index: true, similarity: 'cosine', index_options: { type: 'flat' } },
    'exact kNN, full-precision vectors',
  );
  t.same(create.mappings.properties.model, { type: 'keyword' }, 'each chunk records its model as a keyword');
  t.match(
    calls.find((c) => c.api === 'putIndexTemplate')?.request,
    { name: 'chunks', index_patterns: ['chunks'], template: { mappings: create.mappings } },
    "a template of the same mappings, for an index a bulk request re-creates after another handle's clear",
  );
  t.ok(
    calls.findIndex((c) => c.api === 'putIndexTemplate') < calls.findIndex((c) => c.api === 'create'),
    'the template first',
  );
  t.notOk(
    calls.some((c) => c.api === 'deleteByQuery'),
    'no _delete_by_query: the reindex module is not in every distribution',
  );
  t.match(
    calls.find((c) => c.api === 'search')?.request,
    { query: { term: { resource_key: 'item-1' } }, _source: false },
    'the old chunks are listed',
  );
  const bulk = calls.find((c) => c.api === 'bulk')?.request as { operations: unknown[]; refresh: boolean };
  t.equal(bulk.operations.length, 5, 'two chunks written and the third old one deleted, in one request');
  t.match(bulk.operations[0], { index: { _index: 'chunks', _id: 'item-1-0' } });
  t.match(bulk.operations[1], {
    resource_type: 'item',
    site_ids: [1],
    item_set_ids: [10],
    model: 'model-a',
    vector: [1, 0, 0],
  });
  t.same(bulk.operations[4], { delete: { _index: 'chunks', _id: 'item-1-2' } });
  t.equal(bulk.refresh, true, 'searches see the change when replace returns');

  const hits = await index.search(Float32Array.from([1, 0, 0]), 5, { siteId: 1, itemSetIds: [10], model: 'model-a' });
  t.same(
    hits.map((h) => [h.resourceType, h.distance]),
    [
      ['item', 0],
      ['media', 0.5],
    ],
    'score (1 + cos) / 2 becomes 1 - cos',
  );
  const knnSearches = () => calls.filter((c) => c.api === 'search' && c.request.knn);
  const search = knnSearches()[0].request as { knn: Record<string, unknown>; size: number };
  t.equal(search.size, 5);
  t.match(search.knn, {
    field: 'vector',
    k: 5,
    filter: [
      { term: { model: 'model-a' } },
      { term: { site_ids: 1 } },
      { terms: { resource_type: ['item', 'media'] } },
      { terms: { item_set_ids: [10] } },
    ],
  });
  await index.search(Float32Array.from([1, 0, 0]), 5, { model: 'model-b' });
  t.same(
    (knnSearches()[1].request.knn as { filter: unknown }).filter,
    [{ term: { model: 'model-b' } }],
    'only the model when no other filter is asked',
  );

  const down = new ElasticsearchVectorIndex('http://es', 'chunks', {
    search: async () => {
      throw new Error('connect ECONNREFUSED 10.0.0.1:9200');
    },
  } as unknown as Client);
  const error = await down.search(Float32Array.from([1, 0, 0]), 5).catch((e: unknown) => e);
  t.ok(error instanceof DependencyUnavailableError);
  t.equal((error as Error).message, 'The vector index is unavailable.', 'no driver message leaks');
});

t.test(
  'Elasticsearch index made before chunks recorded their model: the model field is added to its mapping',
  async (t) => {
    const calls: { api: string; request: Record<string, unknown> }[] = [];
    const record =
      (api: string, answer: unknown = {}) =>
      async (request: Record<string, unknown>) => {
        calls.push({ api, request });
        return answer;
      };
    const client = {
      indices: {
        putIndexTemplate: record('putIndexTemplate'),
        exists: record('exists', true),
        create: record('create'),
        putMapping: record('putMapping'),
      },
      count: record('count', { count: 0 }),
      search: record('search', { hits: { hits: [] } }),
      bulk: record('bulk', { errors: false }),
      close: async () => {},
    } as unknown as Client;
    const index = new ElasticsearchVectorIndex('http://es', 'chunks', client);
    await index.replace(
      { resourceType: 'item', resourceId: 1, title: 'T', path: '/item/1', siteIds: [1], itemSetIds: [] },
      [{ text: 'a', vector: Float32Array.from([1, 0, 0]) }],
      'model-a',
    );
    t.notOk(
      calls.some((c) => c.api === 'create'),
      'the index is kept',
    );
    t.match(
      calls.find((c) => c.api === 'count')?.request,
      { index: 'chunks' },
      'it answers a search before it is used',
    );
    t.match(calls.find((c) => c.api === 'putMapping')?.request, {
      index: 'chunks',
      properties: { model: { type: 'keyword' } },
    });
  },
);
