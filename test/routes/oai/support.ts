import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { create } from 'xmlbuilder2';
import { ROOT } from '../../e2e/process.js';

/**
 * OAI-PMH answers for tests: each one parsed (xmlbuilder2's DOM) and checked against the
 * protocol's own XML schemas (test/fixtures/schemas/oai-pmh, with oai_dc and oai-identifier) by
 * libxml2's xmllint, a validator no one here wrote.
 */

export const OAI = 'http://www.openarchives.org/OAI/2.0/';
export const DC = 'http://purl.org/dc/elements/1.1/';
const SCHEMA = join(ROOT, 'test', 'fixtures', 'schemas', 'oai-pmh', 'all.xsd');

/** xmllint's complaints about `xml` ('' when it validates). */
export function schemaErrors(xml: string): string {
  const run = spawnSync('xmllint', ['--nonet', '--noout', '--schema', SCHEMA, '-'], { input: xml, encoding: 'utf8' });
  if (run.error) throw new Error(`xmllint could not run (apt-get install libxml2-utils): ${run.error.message}`);
  return run.status === 0 ? '' : run.stderr;
}

export interface OaiAnswer {
  status: number;
  contentType: string;
  xml: string;
  document: Document;
  /** The texts of the elements named `name` in `namespace` (OAI-PMH's by default), in order. */
  texts(name: string, namespace?: string): string[];
  elements(name: string, namespace?: string): Element[];
  /** The error's code, or null. */
  error: string | null;
  /** The resumptionToken element, or null when the answer has none. */
  token: { value: string; completeListSize: string | null; cursor: string | null } | null;
}

export function parseOai(status: number, contentType: string, xml: string): OaiAnswer {
  // @oozcitak/dom, under xmlbuilder2, implements the DOM's Document interface.
  const document = create(xml).node as unknown as Document;
  const elements = (name: string, namespace = OAI) => Array.from(document.getElementsByTagNameNS(namespace, name));
  const texts = (name: string, namespace = OAI) => elements(name, namespace).map((e) => e.textContent ?? '');
  const [error] = elements('error');
  const [token] = elements('resumptionToken');
  return {
    status,
    contentType,
    xml,
    document,
    texts,
    elements,
    error: error?.getAttribute('code') ?? null,
    token: token
      ? {
          value: token.textContent ?? '',
          completeListSize: token.getAttribute('completeListSize'),
          cursor: token.getAttribute('cursor'),
        }
      : null,
  };
}

/** GET /oai-pmh?{query} (or POST it as a form), parsed. */
export async function oai(app: FastifyInstance, query: string, method: 'GET' | 'POST' = 'GET'): Promise<OaiAnswer> {
  const res =
    method === 'GET'
      ? await app.inject({ method, url: `/oai-pmh?${query}` })
      : await app.inject({
          method,
          url: '/oai-pmh',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: query,
        });
  return parseOai(res.statusCode, String(res.headers['content-type']), res.body);
}

/** Every header of a list harvest followed to its end: [identifier, datestamp, deleted][]. */
export function harvest(
  app: FastifyInstance,
  query: string,
  onPage: (answer: OaiAnswer) => Promise<void> | void = () => {},
): Promise<{ headers: [string, string, boolean][]; pages: OaiAnswer[] }> {
  return harvestOver((next) => oai(app, next), query, onPage);
}

/** A harvest through `get` (a query string in, the parsed answer out), following the tokens to the end. */
export async function harvestOver(
  get: (query: string) => Promise<OaiAnswer>,
  query: string,
  onPage: (answer: OaiAnswer) => Promise<void> | void = () => {},
): Promise<{ headers: [string, string, boolean][]; pages: OaiAnswer[] }> {
  const headers: [string, string, boolean][] = [];
  const pages: OaiAnswer[] = [];
  const verb = new URLSearchParams(query).get('verb');
  let next: string | null = query;
  while (next !== null) {
    const answer = await get(next);
    pages.push(answer);
    if (answer.error) break;
    for (const header of answer.elements('header')) {
      const [identifier] = Array.from(header.getElementsByTagNameNS(OAI, 'identifier'));
      const [datestamp] = Array.from(header.getElementsByTagNameNS(OAI, 'datestamp'));
      headers.push([
        identifier?.textContent ?? '',
        datestamp?.textContent ?? '',
        header.getAttribute('status') === 'deleted',
      ]);
    }
    await onPage(answer);
    next = answer.token?.value ? `verb=${verb}&resumptionToken=${encodeURIComponent(answer.token.value)}` : null;
  }
  return { headers, pages };
}
