import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import { oaiRepositoryIdentifier } from '../../infra/config.js';
import { collectionName } from '../../queries/iiif/manifests.js';
import type { OaiRecordFields } from '../../contracts/oai/documents.js';
import { findOaiRecord, harvestPage, harvestSize, type HarvestQuery } from '../../queries/oai/records.js';
import { itemSets } from '../../contracts/platform/documents.js';
import { userDocs } from '../../contracts/users/documents.js';
import { answerIn } from '../http/documented-responses.js';
import type { RoutesPlugin } from '../http/routes-plugin.js';

/**
 * OAI-PMH 2.0 at GET and POST /oai-pmh (CONTRACT.md section 9): the six verbs, `oai_dc` for
 * every public item, item sets as sets, deleted records kept (`persistent`). Lists come in pages
 * whose resumption token carries all it needs (the log position the harvest began at, the last
 * record's, the cursor and the list's size): no token is stored, a restart loses none, and a
 * harvest reads the collection as it stood when it began, so writes made meanwhile make it
 * neither miss nor repeat a record. Errors are answers too: HTTP 200 with the protocol's codes.
 * The XML is written by xmlbuilder2, which escapes every text and attribute.
 */

const OAI = 'http://www.openarchives.org/OAI/2.0/';
const OAI_DC = 'http://www.openarchives.org/OAI/2.0/oai_dc/';
const DC = 'http://purl.org/dc/elements/1.1/';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const PAGE = 100;
const GRANULARITY = 'YYYY-MM-DDThh:mm:ssZ';

type Verb = 'Identify' | 'ListMetadataFormats' | 'ListSets' | 'ListIdentifiers' | 'ListRecords' | 'GetRecord';
type ErrorCode =
  | 'badVerb'
  | 'badArgument'
  | 'badResumptionToken'
  | 'cannotDisseminateFormat'
  | 'idDoesNotExist'
  | 'noRecordsMatch'
  | 'noMetadataFormats'
  | 'noSetHierarchy';

/** Each verb's arguments: those it needs, those it may take, and whether a resumption token stands alone. */
const ARGUMENTS: Record<Verb, { required: string[]; optional: string[]; resumable: boolean }> = {
  Identify: { required: [], optional: [], resumable: false },
  ListMetadataFormats: { required: [], optional: ['identifier'], resumable: false },
  ListSets: { required: [], optional: [], resumable: true },
  ListIdentifiers: { required: ['metadataPrefix'], optional: ['from', 'until', 'set'], resumable: true },
  ListRecords: { required: ['metadataPrefix'], optional: ['from', 'until', 'set'], resumable: true },
  GetRecord: { required: ['identifier', 'metadataPrefix'], optional: [], resumable: false },
};

class OaiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** What a resumption token carries: the harvest's arguments, where it began and how far it got. */
const Token = Type.Object({
  v: Type.Literal(1),
  s: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
  f: Type.Union([Type.String(), Type.Null()]),
  u: Type.Union([Type.String(), Type.Null()]),
  p: Type.Integer({ minimum: 0 }),
  a: Type.Integer({ minimum: 0 }),
  c: Type.Integer({ minimum: 0 }),
  n: Type.Integer({ minimum: 0 }),
});
type Token = Static<typeof Token>;

function encodeToken(token: Token): string {
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

function decodeToken(text: string): Token {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  if (!/^[A-Za-z0-9_-]+$/.test(text) || !Value.Check(Token, parsed))
    throw new OaiError('badResumptionToken', 'The resumptionToken is not one this repository issued.');
  return parsed;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const SECOND = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** `from`/`until` as datestamps (a day's `until` takes in the whole day); a malformed or mixed pair is badArgument. */
function dateRange(from: string | undefined, until: string | undefined): { from: string | null; until: string | null } {
  const check = (value: string | undefined, name: string) => {
    if (value === undefined) return;
    const valid =
      (DAY.test(value) || SECOND.test(value)) &&
      !Number.isNaN(Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value));
    if (!valid) throw new OaiError('badArgument', `${name} must be a date (YYYY-MM-DD) or a time (${GRANULARITY}).`);
  };
  check(from, 'from');
  check(until, 'until');
  if (from !== undefined && until !== undefined && from.length !== until.length)
    throw new OaiError('badArgument', 'from and until must have the same granularity.');
  const start = from === undefined ? null : from.length === 10 ? `${from}T00:00:00Z` : from;
  const end = until === undefined ? null : until.length === 10 ? `${until}T23:59:59Z` : until;
  if (start !== null && end !== null && start > end) throw new OaiError('badArgument', 'from is after until.');
  return { from: start, until: end };
}

/** The request's arguments, each once; a repeated one is badArgument. */
function argumentsOf(request: FastifyRequest): Map<string, string> {
  const pairs: [string, string][] = [];
  const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
  for (const [key, value] of new URLSearchParams(query)) pairs.push([key, value]);
  if (request.method === 'POST' && request.body && typeof request.body === 'object') {
    for (const [key, value] of Object.entries(request.body)) {
      for (const one of Array.isArray(value) ? value : [value]) pairs.push([key, String(one)]);
    }
  }
  const args = new Map<string, string>();
  for (const [key, value] of pairs) {
    if (args.has(key)) throw new OaiError('badArgument', `The argument ${key} is repeated.`);
    args.set(key, value);
  }
  return args;
}

function isVerb(value: string | undefined): value is Verb {
  return value !== undefined && Object.hasOwn(ARGUMENTS, value);
}

/** Checks the verb's arguments: none missing, none illegal, a resumption token alone. */
function checkArguments(verb: Verb, args: Map<string, string>): void {
  const rule = ARGUMENTS[verb];
  const given = [...args.keys()].filter((key) => key !== 'verb');
  if (rule.resumable && args.has('resumptionToken')) {
    if (given.length > 1) throw new OaiError('badArgument', 'resumptionToken is an exclusive argument.');
    return;
  }
  const allowed = new Set([...rule.required, ...rule.optional]);
  const illegal = given.filter((key) => !allowed.has(key));
  if (illegal.length) throw new OaiError('badArgument', `${verb} does not take ${illegal.join(', ')}.`);
  const missing = rule.required.filter((key) => !args.has(key));
  if (missing.length) throw new OaiError('badArgument', `${verb} needs ${missing.join(', ')}.`);
  dateRange(args.get('from'), args.get('until'));
}

/** A POST's form: the same arguments as a GET's query; a wrong or repeated one is the protocol's badArgument. */
const FormArguments = Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]), {
  description: 'The arguments (`verb=ListRecords&metadataPrefix=oai_dc`...), as a GET takes them in its query.',
});

const DOCUMENT = Type.String({
  description: 'An OAI-PMH 2.0 response (http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd).',
});
const ANSWERS = {
  200: answerIn(
    'The OAI-PMH response, errors included (the protocol answers them with HTTP 200 and an `error` element).',
    { 'text/xml': DOCUMENT },
  ),
};

export const oaiPmhRoutes: RoutesPlugin = async (app, { runtime }) => {
  const config = runtime.config;
  const baseUrl = `${config.baseUrl}/oai-pmh`;
  const repository = () => oaiRepositoryIdentifier(config);
  const identifierOf = (itemId: number) => `oai:${repository()}:${itemId}`;

  function itemIdOf(identifier: string): number {
    const prefix = `oai:${repository()}:`;
    const id = identifier.startsWith(prefix) ? identifier.slice(prefix.length) : '';
    if (!/^[1-9][0-9]{0,15}$/.test(id))
      throw new OaiError('idDoesNotExist', `No record has the identifier ${identifier}.`);
    return Number(id);
  }

  async function publicSets(): Promise<Map<number, string>> {
    const sets = await itemSets(runtime.documents).find({ is_public: true }, { sort: { _id: 1 } });
    return new Map(sets.map((set) => [set.id, set.title]));
  }

  function header(parent: XMLBuilder, record: OaiRecordFields, sets: Map<number, string>): void {
    const node = parent.ele('header', record.deleted ? { status: 'deleted' } : {});
    node.ele('identifier').txt(identifierOf(record.item_id));
    node.ele('datestamp').txt(record.datestamp);
    for (const setId of record.set_ids) if (sets.has(setId)) node.ele('setSpec').txt(String(setId));
  }

  function dublinCore(parent: XMLBuilder, record: OaiRecordFields, sets: Map<number, string>): void {
    const content = record.content;
    if (!content) return;
    const dc = parent.ele('metadata').ele(OAI_DC, 'oai_dc:dc', {
      'xmlns:dc': DC,
      'xmlns:xsi': XSI,
      'xsi:schemaLocation': `${OAI_DC} http://www.openarchives.org/OAI/2.0/oai_dc.xsd`,
    });
    const element = (name: string, value: string) => dc.ele(DC, `dc:${name}`).txt(value);
    element('title', content.title);
    if (content.description) element('description', content.description);
    element('type', content.has_image ? 'Image' : 'PhysicalObject');
    element('identifier', `${config.baseUrl}/item/${record.item_id}`);
    if (content.has_image) element('relation', `${config.baseUrl}/iiif/3/item/${record.item_id}/manifest`);
    for (const setId of content.item_set_ids)
      if (sets.has(setId)) element('relation', `${config.baseUrl}/api/item_sets/${setId}`);
    if (content.rights) element('rights', content.rights);
    element('date', content.created.slice(0, 10));
  }

  function record(parent: XMLBuilder, found: OaiRecordFields, sets: Map<number, string>): void {
    const node = parent.ele('record');
    header(node, found, sets);
    dublinCore(node, found, sets);
  }

  async function identify(body: XMLBuilder): Promise<void> {
    const node = body.ele('Identify');
    node.ele('repositoryName').txt(await collectionName(runtime.documents, config));
    node.ele('baseURL').txt(baseUrl);
    node.ele('protocolVersion').txt('2.0');
    node.ele('adminEmail').txt(await adminEmail());
    const [first] = await runtime.eventStore.readAll(0, 1);
    node.ele('earliestDatestamp').txt((first?.metadata.at ?? new Date(0).toISOString()).slice(0, 19) + 'Z');
    node.ele('deletedRecord').txt('persistent');
    node.ele('granularity').txt(GRANULARITY);
    const description = node
      .ele('description')
      .ele('http://www.openarchives.org/OAI/2.0/oai-identifier', 'oai-identifier', {
        'xmlns:xsi': XSI,
        'xsi:schemaLocation':
          'http://www.openarchives.org/OAI/2.0/oai-identifier http://www.openarchives.org/OAI/2.0/oai-identifier.xsd',
      });
    description.ele('scheme').txt('oai');
    description.ele('repositoryIdentifier').txt(repository());
    description.ele('delimiter').txt(':');
    description.ele('sampleIdentifier').txt(identifierOf(1));
  }

  async function adminEmail(): Promise<string> {
    if (config.oaiAdminEmail) return config.oaiAdminEmail;
    const admins = await userDocs(runtime.documents).find({ role: 'global_admin' }, { sort: { _id: 1 }, limit: 1 });
    return admins[0]?.email ?? `admin@${repository()}`;
  }

  async function listMetadataFormats(body: XMLBuilder, args: Map<string, string>): Promise<void> {
    const identifier = args.get('identifier');
    if (identifier !== undefined) {
      const found = await findOaiRecord(runtime.documents, itemIdOf(identifier));
      if (!found) throw new OaiError('idDoesNotExist', `No record has the identifier ${identifier}.`);
      if (found.deleted) throw new OaiError('noMetadataFormats', 'The record is deleted: it has no metadata.');
    }
    const format = body.ele('ListMetadataFormats').ele('metadataFormat');
    format.ele('metadataPrefix').txt('oai_dc');
    format.ele('schema').txt('http://www.openarchives.org/OAI/2.0/oai_dc.xsd');
    format.ele('metadataNamespace').txt(OAI_DC);
  }

  async function listSets(body: XMLBuilder, args: Map<string, string>): Promise<void> {
    if (args.has('resumptionToken'))
      throw new OaiError('badResumptionToken', 'ListSets answers every set at once: it issues no resumptionToken.');
    const sets = await publicSets();
    if (sets.size === 0) throw new OaiError('noSetHierarchy', 'The repository has no sets.');
    const node = body.ele('ListSets');
    for (const [id, title] of sets) {
      const set = node.ele('set');
      set.ele('setSpec').txt(String(id));
      set.ele('setName').txt(title);
    }
  }

  function requireOaiDc(prefix: string | undefined): void {
    if (prefix !== 'oai_dc') throw new OaiError('cannotDisseminateFormat', 'The only metadata format is oai_dc.');
  }

  async function list(body: XMLBuilder, verb: 'ListIdentifiers' | 'ListRecords', args: Map<string, string>) {
    const given = args.get('resumptionToken');
    // Read once: the set argument is checked against them, and the page's headers name them.
    const sets = await publicSets();
    let token: Token;
    if (given !== undefined) {
      token = decodeToken(given);
    } else {
      requireOaiDc(args.get('metadataPrefix'));
      const range = dateRange(args.get('from'), args.get('until'));
      const setSpec = args.get('set');
      const set = setSpec === undefined ? null : /^[1-9][0-9]{0,15}$/.test(setSpec) ? Number(setSpec) : -1;
      if (set !== null && !sets.has(set)) throw new OaiError('noRecordsMatch', `No set ${setSpec}.`);
      const start = { s: set, f: range.from, u: range.until, p: runtime.projections.currentPosition, a: 0, c: 0 };
      const size = await harvestSize(runtime.documents, queryOf({ v: 1, ...start, n: 0 }));
      if (size === 0) throw new OaiError('noRecordsMatch', 'No record matches.');
      token = { v: 1, ...start, n: size };
    }
    const page = await harvestPage(runtime.documents, queryOf(token), PAGE);
    if (page.length === 0 && given === undefined) throw new OaiError('noRecordsMatch', 'No record matches.');
    const node = body.ele(verb);
    for (const found of page) {
      if (verb === 'ListRecords') record(node, found, sets);
      else header(node, found, sets);
    }
    const done = token.c + page.length;
    if (given === undefined && done >= token.n) return;
    const last = page[page.length - 1];
    const next = done < token.n && last ? encodeToken({ ...token, a: last.seq, c: done }) : '';
    node.ele('resumptionToken', { completeListSize: String(token.n), cursor: String(token.c) }).txt(next);
  }

  function queryOf(token: Token): HarvestQuery {
    return { snapshot: token.p, after: token.a, from: token.f, until: token.u, set: token.s };
  }

  async function getRecord(body: XMLBuilder, args: Map<string, string>): Promise<void> {
    requireOaiDc(args.get('metadataPrefix'));
    const identifier = args.get('identifier') ?? '';
    const found = await findOaiRecord(runtime.documents, itemIdOf(identifier));
    if (!found) throw new OaiError('idDoesNotExist', `No record has the identifier ${identifier}.`);
    record(body.ele('GetRecord'), found, await publicSets());
  }

  async function respond(request: FastifyRequest, reply: FastifyReply) {
    const root = create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: '\uFFFD' }).ele(OAI, 'OAI-PMH', {
      'xmlns:xsi': XSI,
      'xsi:schemaLocation': `${OAI} http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd`,
    });
    root.ele('responseDate').txt(runtime.clock.now().toISOString().slice(0, 19) + 'Z');
    const send = () => reply.header('Content-Type', 'text/xml; charset=utf-8').send(root.end({ prettyPrint: false }));
    const fail = (error: unknown) => {
      if (!(error instanceof OaiError)) throw error;
      root.ele('error', { code: error.code }).txt(error.message);
    };
    let args: Map<string, string>;
    let verb: Verb;
    try {
      args = argumentsOf(request);
      const asked = args.get('verb');
      if (!isVerb(asked))
        throw new OaiError('badVerb', asked === undefined ? 'The verb is missing.' : `${asked} is not a verb.`);
      verb = asked;
      checkArguments(verb, args);
    } catch (error) {
      // A badVerb or badArgument answer's request element has no attributes (the protocol, 3.2).
      root.ele('request').txt(baseUrl);
      fail(error);
      return send();
    }
    root.ele('request', Object.fromEntries(args)).txt(baseUrl);
    try {
      await dispatch(verb, root, args);
    } catch (error) {
      fail(error);
    }
    return send();
  }

  async function dispatch(verb: Verb, body: XMLBuilder, args: Map<string, string>): Promise<void> {
    switch (verb) {
      case 'Identify':
        return identify(body);
      case 'ListMetadataFormats':
        return listMetadataFormats(body, args);
      case 'ListSets':
        return listSets(body, args);
      case 'ListIdentifiers':
      case 'ListRecords':
        return list(body, verb, args);
      case 'GetRecord':
        return getRecord(body, args);
      default: {
        const _exhaustive: never = verb;
        return;
      }
    }
  }

  const schema = {
    tags: ['oai-pmh'],
    summary: 'OAI-PMH 2.0',
    description:
      'The six verbs (`verb=Identify`, `ListMetadataFormats`, `ListSets`, `ListIdentifiers`, `ListRecords`, `GetRecord`) with their arguments, ' +
      '`oai_dc` for every public item, item sets as sets, deleted records persistent; lists in pages of ' +
      `${PAGE} with self-contained resumption tokens. Every answer, errors included, is HTTP 200 \`text/xml\`.`,
  };
  app.get('/oai-pmh', { schema, config: { documentedResponses: ANSWERS } }, respond);
  // The protocol's POST is a form (application/x-www-form-urlencoded) and nothing else: any other
  // body is Fastify's 415, in the platform's error shape.
  for (const type of ['application/json', 'text/plain'])
    if (app.hasContentTypeParser(type)) app.removeContentTypeParser(type);
  app.post(
    '/oai-pmh',
    {
      schema: {
        ...schema,
        summary: 'OAI-PMH 2.0 (arguments in a form body)',
        consumes: ['application/x-www-form-urlencoded'],
        body: FormArguments,
      },
      config: { documentedResponses: ANSWERS },
    },
    respond,
  );
};
