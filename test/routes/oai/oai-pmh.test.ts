import t from 'tap';
import { FixedClock } from '../../../infra/clock/port.js';
import { buildTestApp, keyFor, ROLE_USERS } from '../../helper.js';
import { photograph, uploadMedia } from '../platform/media-support.js';
import { DC, harvest, oai, schemaErrors, type OaiAnswer } from './support.js';

/**
 * OAI-PMH 2.0 through app.inject: the six verbs, every error the protocol names, deleted and
 * private records, from/until, paging with self-contained tokens, and a harvest that writes made
 * meanwhile neither make miss nor repeat a record. Every answer is validated by xmllint against
 * the protocol's XML schemas.
 */

const ID = (item: number) => `oai:test.example.org:${item}`;
const TITLE = 'Chart & "Map" <1> of the \u{1D11E} coast';
const DAY_ONE = new Date('2026-03-01T12:00:00Z');

function fixture() {
  return {
    users: ROLE_USERS,
    item_sets: [
      { id: 10, title: 'Maps & <Charts>' },
      { id: 11, title: 'Hidden', is_public: false },
    ],
    items: [
      {
        id: 1,
        title: TITLE,
        description: 'Drawn in 1790.',
        rights: 'http://creativecommons.org/licenses/by/4.0/',
        item_set_ids: [10, 11],
      },
      { id: 2, title: 'Never public', is_public: false },
      ...Array.from({ length: 250 }, (_, i) => ({ id: 3 + i, title: `Item ${3 + i}` })),
    ],
  };
}

t.test('OAI-PMH', async (t) => {
  const clock = new FixedClock(DAY_ONE);
  const { app } = await buildTestApp(t, {
    fixture: fixture(),
    clock,
    config: { oaiRepositoryIdentifier: 'test.example.org' },
  });
  const editor = keyFor('editor');
  const answers: OaiAnswer[] = [];
  const ask = async (query: string, method: 'GET' | 'POST' = 'GET') => {
    const answer = await oai(app, query, method);
    answers.push(answer);
    t.equal(answer.status, 200, `${query}: HTTP 200`);
    t.equal(answer.contentType, 'text/xml; charset=utf-8', `${query}: text/xml`);
    return answer;
  };
  const errorOf = async (query: string, method: 'GET' | 'POST' = 'GET') => (await ask(query, method)).error;

  t.test('Identify', async (t) => {
    const answer = await ask('verb=Identify');
    t.equal(answer.error, null);
    t.same(answer.texts('repositoryName'), ['Collections']);
    t.same(answer.texts('baseURL'), ['http://test.local/oai-pmh']);
    t.same(answer.texts('protocolVersion'), ['2.0']);
    t.same(answer.texts('adminEmail'), ['global@example.org'], "the first global administrator's email");
    t.same(answer.texts('earliestDatestamp'), ['2026-03-01T12:00:00Z'], "the first event's time");
    t.same(answer.texts('deletedRecord'), ['persistent']);
    t.same(answer.texts('granularity'), ['YYYY-MM-DDThh:mm:ssZ']);
    const scheme = 'http://www.openarchives.org/OAI/2.0/oai-identifier';
    t.same(answer.texts('repositoryIdentifier', scheme), ['test.example.org']);
    t.same(answer.texts('sampleIdentifier', scheme), [ID(1)]);
    t.same(answer.elements('request')[0]?.getAttribute('verb'), 'Identify', 'the request echoes its arguments');
  });

  t.test('ListMetadataFormats', async (t) => {
    const all = await ask('verb=ListMetadataFormats');
    t.same(all.texts('metadataPrefix'), ['oai_dc']);
    t.same(all.texts('metadataNamespace'), ['http://www.openarchives.org/OAI/2.0/oai_dc/']);
    t.same((await ask(`verb=ListMetadataFormats&identifier=${ID(1)}`)).texts('metadataPrefix'), ['oai_dc']);
    t.equal(await errorOf(`verb=ListMetadataFormats&identifier=${ID(2)}`), 'idDoesNotExist', 'never public: no record');
    t.equal(await errorOf('verb=ListMetadataFormats&identifier=oai:elsewhere.org:1'), 'idDoesNotExist');
    t.equal(await errorOf('verb=ListMetadataFormats&identifier=oai:test.example.org:01'), 'idDoesNotExist');
  });

  t.test('ListSets: the public item sets, titled', async (t) => {
    const answer = await ask('verb=ListSets');
    t.same(answer.texts('setSpec'), ['10']);
    t.same(answer.texts('setName'), ['Maps & <Charts>'], 'escaped and read back');
    t.equal(await errorOf('verb=ListSets&resumptionToken=abc'), 'badResumptionToken');
  });

  t.test('GetRecord: oai_dc', async (t) => {
    const answer = await ask(`verb=GetRecord&identifier=${encodeURIComponent(ID(1))}&metadataPrefix=oai_dc`);
    t.equal(answer.error, null);
    t.same(answer.texts('identifier'), [ID(1)]);
    t.same(answer.texts('datestamp'), ['2026-03-01T12:00:00Z']);
    t.same(answer.texts('setSpec'), ['10'], 'only public sets are setSpecs');
    t.same(answer.texts('title', DC), [TITLE], 'markup characters and a character outside the BMP round-trip');
    t.same(answer.texts('description', DC), ['Drawn in 1790.']);
    t.same(answer.texts('identifier', DC), ['http://test.local/item/1'], "the item's public URL");
    t.same(answer.texts('type', DC), ['PhysicalObject'], 'no image yet');
    t.same(answer.texts('rights', DC), ['http://creativecommons.org/licenses/by/4.0/']);
    t.same(answer.texts('date', DC), ['2026-03-01']);
    t.same(answer.texts('relation', DC), ['http://test.local/api/item_sets/10'], 'its public set, not the private one');
    t.equal(await errorOf(`verb=GetRecord&identifier=${ID(1)}&metadataPrefix=marc21`), 'cannotDisseminateFormat');
    t.equal(await errorOf(`verb=GetRecord&identifier=${ID(2)}&metadataPrefix=oai_dc`), 'idDoesNotExist');
    t.equal(await errorOf(`verb=GetRecord&identifier=${ID(9999)}&metadataPrefix=oai_dc`), 'idDoesNotExist');
    t.equal(await errorOf('verb=GetRecord&identifier=nonsense&metadataPrefix=oai_dc'), 'idDoesNotExist');
  });

  t.test('arguments: every wrong one named', async (t) => {
    t.equal(await errorOf(''), 'badVerb', 'no verb');
    t.equal(await errorOf('verb=Harvest'), 'badVerb');
    t.equal(await errorOf('verb=Identify&verb=Identify'), 'badArgument', 'a repeated verb');
    t.equal(await errorOf('verb=Identify&extra=1'), 'badArgument', 'an illegal argument');
    t.equal(await errorOf('verb=ListRecords'), 'badArgument', 'metadataPrefix missing');
    t.equal(await errorOf('verb=GetRecord&metadataPrefix=oai_dc'), 'badArgument', 'identifier missing');
    t.equal(await errorOf('verb=ListRecords&metadataPrefix=oai_dc&metadataPrefix=oai_dc'), 'badArgument', 'repeated');
    t.equal(await errorOf('verb=ListRecords&metadataPrefix=oai_dc&from=2026-13-01'), 'badArgument', 'no month 13');
    t.equal(await errorOf('verb=ListRecords&metadataPrefix=oai_dc&from=yesterday'), 'badArgument');
    t.equal(
      await errorOf('verb=ListRecords&metadataPrefix=oai_dc&from=2026-03-01&until=2026-03-02T00:00:00Z'),
      'badArgument',
      'mixed granularities',
    );
    t.equal(
      await errorOf('verb=ListRecords&metadataPrefix=oai_dc&from=2026-03-02&until=2026-03-01'),
      'badArgument',
      'from after until',
    );
    t.equal(
      await errorOf('verb=ListRecords&metadataPrefix=oai_dc&resumptionToken=x'),
      'badArgument',
      'token not alone',
    );
    t.equal(await errorOf('verb=ListIdentifiers&resumptionToken=not-a-token'), 'badResumptionToken');
    const forged = Buffer.from(JSON.stringify({ v: 1, s: null, f: null, u: null, p: -1, a: 0, c: 0, n: 1 })).toString(
      'base64url',
    );
    t.equal(await errorOf(`verb=ListRecords&resumptionToken=${forged}`), 'badResumptionToken', 'a forged token');
    t.equal(await errorOf('verb=ListRecords&metadataPrefix=mods'), 'cannotDisseminateFormat');
    t.equal(await errorOf('verb=ListRecords&metadataPrefix=oai_dc&set=11'), 'noRecordsMatch', 'a private set');
    t.equal(await errorOf('verb=ListRecords&metadataPrefix=oai_dc&set=abc'), 'noRecordsMatch');
    t.equal(await errorOf('verb=ListRecords&metadataPrefix=oai_dc&from=2030-01-01'), 'noRecordsMatch');
    const bad = await ask('verb=Identify&extra=1');
    t.same(bad.elements('request')[0]?.attributes.length, 0, 'a badArgument answer echoes no arguments');
  });

  t.test('POST takes the arguments as a form', async (t) => {
    const answer = await ask(`verb=GetRecord&identifier=${encodeURIComponent(ID(1))}&metadataPrefix=oai_dc`, 'POST');
    t.same(answer.texts('title', DC), [TITLE]);
    t.equal(await errorOf('verb=Identify&verb=ListSets', 'POST'), 'badArgument', 'a repeated field');
    t.equal(await errorOf('verb=Nothing', 'POST'), 'badVerb');
  });

  t.test('lists come in pages of 100 with completeListSize and cursor', async (t) => {
    const { headers, pages } = await harvest(app, 'verb=ListIdentifiers&metadataPrefix=oai_dc');
    answers.push(...pages);
    t.equal(pages.length, 3);
    t.same(
      pages.map((p) => [
        p.elements('header').length,
        p.token?.completeListSize,
        p.token?.cursor,
        p.token?.value !== '',
      ]),
      [
        [100, '251', '0', true],
        [100, '251', '100', true],
        [51, '251', '200', false],
      ],
      'the last page has an empty token',
    );
    t.same(
      headers.map(([id]) => id).sort(),
      [1, ...Array.from({ length: 250 }, (_, i) => 3 + i)].map(ID).sort(),
      'every public item once',
    );
    const small = await ask('verb=ListRecords&metadataPrefix=oai_dc&set=10');
    t.equal(small.token, null, 'a list on one page has no token');
    t.same(small.texts('identifier'), [ID(1)]);
    t.same(small.texts('title', DC), [TITLE]);
  });

  t.test('deleted and private items: headers with status="deleted" and the datestamp of the change', async (t) => {
    clock.set(new Date('2026-03-02T08:30:00Z'));
    t.equal((await app.inject({ method: 'DELETE', url: `/api/items/3?${editor}` })).statusCode, 200);
    clock.set(new Date('2026-03-02T23:59:59Z'));
    const priv = await app.inject({
      method: 'PATCH',
      url: `/api/items/4?${editor}`,
      payload: { 'o:is_public': false },
    });
    t.equal(priv.statusCode, 200);
    clock.set(new Date('2026-03-03T00:00:00Z'));
    const renamed = await app.inject({ method: 'PATCH', url: `/api/items/5?${editor}`, payload: { 'o:title': 'New' } });
    t.equal(renamed.statusCode, 200);

    const deleted = await ask(`verb=GetRecord&identifier=${ID(3)}&metadataPrefix=oai_dc`);
    t.equal(deleted.elements('header')[0]?.getAttribute('status'), 'deleted');
    t.same(deleted.texts('datestamp'), ['2026-03-02T08:30:00Z']);
    t.equal(deleted.elements('metadata').length, 0, 'no metadata');
    const hidden = await ask(`verb=GetRecord&identifier=${ID(4)}&metadataPrefix=oai_dc`);
    t.equal(hidden.elements('header')[0]?.getAttribute('status'), 'deleted', 'made private: deleted');
    t.equal(hidden.elements('metadata').length, 0);
    t.equal(await errorOf(`verb=ListMetadataFormats&identifier=${ID(3)}`), 'noMetadataFormats');

    const day = await ask('verb=ListIdentifiers&metadataPrefix=oai_dc&from=2026-03-02&until=2026-03-02');
    t.same(
      day
        .elements('header')
        .map((h) => [h.getElementsByTagNameNS(h.namespaceURI, 'identifier')[0]?.textContent, h.getAttribute('status')]),
      [
        [ID(3), 'deleted'],
        [ID(4), 'deleted'],
      ],
      "a day's until takes in its last second; from and until are inclusive",
    );
    const second = await ask(
      'verb=ListIdentifiers&metadataPrefix=oai_dc&from=2026-03-02T23:59:59Z&until=2026-03-03T00:00:00Z',
    );
    t.same(second.texts('identifier'), [ID(4), ID(5)], 'to the second, both ends inclusive');
    const renamedRecord = await ask('verb=ListRecords&metadataPrefix=oai_dc&from=2026-03-03');
    t.same(renamedRecord.texts('title', DC), ['New']);

    clock.set(new Date('2026-03-03T10:00:00Z'));
    t.equal(
      (await app.inject({ method: 'PATCH', url: `/api/items/4?${editor}`, payload: { 'o:is_public': true } }))
        .statusCode,
      200,
    );
    const back = await ask(`verb=GetRecord&identifier=${ID(4)}&metadataPrefix=oai_dc`);
    t.equal(back.elements('header')[0]?.getAttribute('status'), null, 'public again: a record again');
    t.same(back.texts('datestamp'), ['2026-03-03T10:00:00Z']);
  });

  t.test('an image: dc:type Image and a relation to its manifest', async (t) => {
    const res = await uploadMedia(
      app,
      editor,
      { 'o:item': { 'o:id': 6 } },
      { filename: 'p.jpg', content: await photograph(40, 30) },
    );
    t.equal(res.statusCode, 201, res.body);
    const answer = await ask(`verb=GetRecord&identifier=${ID(6)}&metadataPrefix=oai_dc`);
    t.same(answer.texts('type', DC), ['Image']);
    t.same(answer.texts('relation', DC), ['http://test.local/iiif/3/item/6/manifest']);
  });

  t.test("a set made private or public again: its records' headers change, with that change's datestamp", async (t) => {
    const setPublic = async (is_public: boolean) =>
      (
        await app.inject({
          method: 'PATCH',
          url: `/api/item_sets/10?${editor}`,
          payload: { 'o:is_public': is_public },
        })
      ).statusCode;
    clock.set(new Date('2026-03-03T12:00:00Z'));
    t.equal(await setPublic(false), 200);
    const hidden = await ask(`verb=GetRecord&identifier=${ID(1)}&metadataPrefix=oai_dc`);
    t.same(hidden.texts('setSpec'), [], 'no longer in the set for harvesters');
    t.same(hidden.texts('datestamp'), ['2026-03-03T12:00:00Z']);
    const since = await ask('verb=ListIdentifiers&metadataPrefix=oai_dc&from=2026-03-03T12:00:00Z');
    t.same(since.texts('identifier'), [ID(1)], 'an incremental harvest brings the header again');
    clock.set(new Date('2026-03-03T12:30:00Z'));
    t.equal(await setPublic(true), 200);
    const shown = await ask(`verb=GetRecord&identifier=${ID(1)}&metadataPrefix=oai_dc`);
    t.same(shown.texts('setSpec'), ['10']);
    t.same(shown.texts('datestamp'), ['2026-03-03T12:30:00Z']);
    t.same(shown.texts('title', DC), [TITLE], 'the same record');
  });

  t.test('a character XML cannot carry is replaced, not sent', async (t) => {
    const res = await app.inject({
      method: 'PATCH',
      url: `/api/items/7?${editor}`,
      payload: { 'o:title': 'Bell\u0007 and form\u000C feed' },
    });
    t.equal(res.statusCode, 200, res.body);
    const answer = await ask(`verb=GetRecord&identifier=${ID(7)}&metadataPrefix=oai_dc`);
    t.same(answer.texts('title', DC), ['Bell\uFFFD and form\uFFFD feed']);
  });

  t.test('a harvest while the collection changes neither misses nor repeats a record', async (t) => {
    const before = await harvest(app, 'verb=ListIdentifiers&metadataPrefix=oai_dc');
    const expected = before.headers.map(([id, datestamp]) => `${id} ${datestamp}`);
    let page = 0;
    clock.set(new Date('2026-03-04T09:00:00Z'));
    const during = await harvest(app, 'verb=ListRecords&metadataPrefix=oai_dc', async () => {
      page++;
      if (page !== 1) return;
      // After the first page: records of every page change, one goes, one comes.
      for (const id of [1, 150, 252])
        await app.inject({
          method: 'PATCH',
          url: `/api/items/${id}?${editor}`,
          payload: { 'o:title': `Changed ${id}` },
        });
      await app.inject({ method: 'DELETE', url: `/api/items/200?${editor}` });
      await app.inject({ method: 'POST', url: `/api/items?${editor}`, payload: { 'o:title': 'Newcomer' } });
    });
    answers.push(...during.pages);
    t.same(
      during.headers.map(([id, datestamp]) => `${id} ${datestamp}`),
      expected,
      'the harvest reads the collection as it stood when it began',
    );
    const after = await harvest(app, 'verb=ListIdentifiers&metadataPrefix=oai_dc&from=2026-03-04');
    t.same(
      after.headers.map(([id, , deleted]) => [id, deleted]),
      [
        [ID(1), false],
        [ID(150), false],
        [ID(252), false],
        [ID(200), true],
        [ID(253), false],
      ],
      'the next incremental harvest brings every change made meanwhile',
    );
  });

  t.test('every answer validates against the OAI-PMH, oai_dc and oai-identifier schemas', async (t) => {
    t.ok(answers.length > 40, `${answers.length} answers`);
    for (const answer of answers) {
      const errors = schemaErrors(answer.xml);
      t.equal(errors, '', errors ? answer.xml.slice(0, 400) : 'valid');
    }
  });
});

t.test('OAI_ADMIN_EMAIL, COLLECTION_NAME and the identifier taken from BASE_URL', async (t) => {
  const { app } = await buildTestApp(t, {
    fixture: { users: ROLE_USERS, items: [{ id: 1, title: 'One' }] },
    config: {
      baseUrl: 'https://collections.museum.example',
      oaiAdminEmail: 'oai@museum.example',
      collectionName: 'The Museum',
    },
  });
  const answer = await oai(app, 'verb=Identify');
  t.same(answer.texts('adminEmail'), ['oai@museum.example']);
  t.same(answer.texts('repositoryName'), ['The Museum']);
  t.same(answer.texts('baseURL'), ['https://collections.museum.example/oai-pmh']);
  t.same(answer.texts('repositoryIdentifier', 'http://www.openarchives.org/OAI/2.0/oai-identifier'), [
    'collections.museum.example',
  ]);
  t.equal(schemaErrors(answer.xml), '');
  const local = await buildTestApp(t, {
    fixture: { items: [{ id: 1, title: 'One' }] },
    config: { baseUrl: 'http://127.0.0.1:8080' },
  });
  const fallback = await oai(local.app, 'verb=ListIdentifiers&metadataPrefix=oai_dc');
  t.same(fallback.texts('identifier'), ['oai:localhost.localdomain:1'], 'an IP address is no domain name');
  t.equal(schemaErrors(fallback.xml), '');
  const identify = await oai(local.app, 'verb=Identify');
  t.same(identify.texts('adminEmail'), ['admin@localhost.localdomain'], 'no administrator: an address still');
  t.equal(schemaErrors(identify.xml), '');
});
