import { isFormBody } from '../http/validation.js';
import { BadRequestError } from '../../infra/errors.js';
import type { ChatParams } from '../../queries/chatbot/chat.js';
import type { SearchParams } from '../../queries/chatbot/search.js';

export const QUESTION_MAX = 1000;
export const QUERY_MAX = 500;
export const SYSTEM_PROMPT_MAX = 4000;
export const PER_PAGE_DEFAULT = 10;
export const PER_PAGE_MAX = 50;

type Body = Record<string, unknown>;

function isFields(body: unknown): body is Body {
  return body !== null && typeof body === 'object' && !Array.isArray(body);
}

/** JSON and form bodies alike; a body that is not an object carries no fields. */
function fields(body: unknown): Body {
  return isFields(body) ? body : {};
}

/**
 * A form repeats a key to send a list; for a single-valued field its first value counts. Only
 * a form: a JSON array where a string belongs is a wrong type, refused as any other.
 */
function singleFrom(form: boolean): (value: unknown) => unknown {
  if (!form) return (value) => value;
  return (value) =>
    Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string') ? value[0] : value;
}

/** Lone UTF-16 surrogates: text no URL, and no slug, can be made of. */
const LONE_SURROGATE = /\p{Cs}/u;

const charCount = (text: string) => [...text].length;

function requiredText(raw: unknown, label: string, max: number): string {
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === ''))
    throw new BadRequestError(`${label} is required.`);
  if (typeof raw !== 'string') throw new BadRequestError(`${label} must be a string.`);
  const text = raw.trim();
  if (charCount(text) > max) throw new BadRequestError(`${label} must be at most ${max} characters.`);
  return text;
}

function optionalText(raw: unknown, name: string, max: number): string | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw !== 'string') throw new BadRequestError(`${name} must be a string.`);
  if (charCount(raw) > max) throw new BadRequestError(`${name} must be at most ${max} characters.`);
  return raw.trim() === '' ? undefined : raw;
}

function toPositiveInt(value: unknown): number | null {
  if (typeof value === 'number') return Number.isInteger(value) && value > 0 ? value : null;
  if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) && n > 0 ? n : null;
  }
  return null;
}

function optionalPositiveInt(raw: unknown, name: string): number | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const n = toPositiveInt(raw);
  if (n === null) throw new BadRequestError(`${name} must be a positive integer.`);
  return n;
}

/**
 * The item sets to restrict to: a JSON array, repeated form keys (`item_set_ids[]=1`), or a
 * comma-separated string. Non-positive and non-numeric entries are ignored, as the seed says.
 */
export function itemSetIds(body: Body): number[] {
  const raw = body.item_set_ids ?? body['item_set_ids[]'];
  const entries: unknown[] = Array.isArray(raw)
    ? raw
    : typeof raw === 'string'
      ? raw.split(',')
      : raw === undefined || raw === null
        ? []
        : [raw];
  const ids = entries.map(toPositiveInt).filter((n): n is number => n !== null);
  return [...new Set(ids)];
}

function siteFields(body: Body, single: (value: unknown) => unknown): { siteId?: number; siteSlug?: string } {
  const siteSlug = optionalText(single(body.site_slug), 'site_slug', 190);
  if (siteSlug !== undefined && LONE_SURROGATE.test(siteSlug))
    throw new BadRequestError('site_slug is not valid text.');
  return { siteId: optionalPositiveInt(single(body.site_id), 'site_id'), siteSlug };
}

export function parseChatRequest(body: unknown): ChatParams {
  const f = fields(body);
  const single = singleFrom(isFormBody(body));
  const question = requiredText(single(f.question), 'Question', QUESTION_MAX);
  return {
    question,
    ...siteFields(f, single),
    systemPrompt: optionalText(single(f.system_prompt), 'system_prompt', SYSTEM_PROMPT_MAX),
    itemSetIds: itemSetIds(f),
  };
}

export function parseSearchRequest(body: unknown): SearchParams {
  const f = fields(body);
  const single = singleFrom(isFormBody(body));
  const query = requiredText(single(f.query), 'Query', QUERY_MAX);
  return {
    query,
    page: optionalPositiveInt(single(f.page), 'page') ?? 1,
    perPage: Math.min(optionalPositiveInt(single(f.per_page), 'per_page') ?? PER_PAGE_DEFAULT, PER_PAGE_MAX),
    ...siteFields(f, single),
    itemSetIds: itemSetIds(f),
  };
}
