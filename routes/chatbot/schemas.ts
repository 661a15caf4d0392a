import { Type } from '@sinclair/typebox';
import { PER_PAGE_DEFAULT, PER_PAGE_MAX, QUERY_MAX, QUESTION_MAX, SYSTEM_PROMPT_MAX } from './request.js';

const ItemSetIds = Type.Array(Type.Integer(), {
  description:
    'Only items in at least one of these sets, and their media; blog posts and site pages are then excluded. ' +
    'Non-positive and non-numeric entries are ignored; an empty array means no restriction. Form bodies may repeat ' +
    '`item_set_ids[]` or send a comma-separated list.',
});
const SiteId = Type.Integer({
  minimum: 1,
  description: 'Only resources that belong to this site; omitted means all sites.',
});
const SiteSlug = Type.String({ description: 'Rewrites result URLs to `/s/{site_slug}/...`.' });

export const ChatBody = Type.Object({
  question: Type.String({ minLength: 1, maxLength: QUESTION_MAX }),
  site_id: Type.Optional(SiteId),
  site_slug: Type.Optional(SiteSlug),
  system_prompt: Type.Optional(
    Type.String({ maxLength: SYSTEM_PROMPT_MAX, description: 'Replaces the default system prompt for this request.' }),
  ),
  item_set_ids: Type.Optional(ItemSetIds),
});

export const SearchBody = Type.Object({
  query: Type.String({ minLength: 1, maxLength: QUERY_MAX }),
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  per_page: Type.Optional(
    Type.Integer({
      minimum: 1,
      default: PER_PAGE_DEFAULT,
      description: `At most ${PER_PAGE_MAX}; larger values are treated as ${PER_PAGE_MAX}.`,
    }),
  ),
  site_id: Type.Optional(SiteId),
  site_slug: Type.Optional(SiteSlug),
  item_set_ids: Type.Optional(ItemSetIds),
});

const ResourceType = Type.Union([
  Type.Literal('item'),
  Type.Literal('media'),
  Type.Literal('blog_post'),
  Type.Literal('site_page'),
]);

export const ChatResponseSchema = Type.Object({
  answer_html: Type.String({
    description: 'Escaped paragraph HTML; each [N] is a superscript link to #chatbot-source-N.',
  }),
  sources: Type.Array(
    Type.Object({
      citation_num: Type.Integer(),
      title: Type.String(),
      url: Type.String(),
      resource_type: ResourceType,
      resource_id: Type.Integer(),
      snippet: Type.String({ description: 'First 200 characters of the matching chunk.' }),
    }),
    { description: 'Only the cited evidence, in citation order.' },
  ),
  still_reading: Type.Optional(
    Type.Literal(true, {
      description:
        "Not among the seed's fields; present (true) only while the collection is still being read (indexed by words or by meaning, see `chatbot` in GET /health): the answer may miss some items. Absent otherwise.",
    }),
  ),
});

export const ChatEventStreamSchema = Type.String({
  description:
    'Server-Sent Events, sent when the request carries `Accept: text/event-stream` (other requests get the JSON answer). ' +
    'Each event has a name and one `data` line of JSON, in this order: `text` events `{"text": "..."}`, pieces of the answer\'s ' +
    'plain text in order as the answerer produces them (the embedded answerer a sentence at a time; Cohere as it writes; they ' +
    'may lack the [N] markers a provider adds at the end); then one `sources` event `{"sources": [...]}`, the cited sources as ' +
    'in the JSON answer; then one `end` event whose data is exactly the JSON answer (`answer_html`, `sources`) the same request ' +
    'gets without the header, so a client may keep only that. An error before the first event is answered as without the ' +
    'header (400, 429 with Retry-After, 503, 500 and their JSON bodies); an error after it is an `error` event ' +
    '`{"error": "message"}` (the message the 503 or 500 would carry) and the stream ends. A client that disconnects stops the ' +
    'work on its answer. Rate limit, CORS and request fields are those of the JSON answer.',
});

export const SearchResponseSchema = Type.Object({
  results: Type.Array(
    Type.Object({
      resource_type: ResourceType,
      resource_id: Type.Integer(),
      title: Type.String(),
      url: Type.String(),
      distance: Type.Number({ description: 'Cosine distance; 0 means identical.' }),
      snippet: Type.String({ description: 'Up to 300 characters of the matching chunk.' }),
    }),
  ),
  total: Type.Integer({
    description: 'Distinct resources among the fetched chunks (at most 100 chunks, 150 with site_id).',
  }),
  page: Type.Integer(),
  per_page: Type.Integer(),
});

export const ErrorBody = Type.Object({ error: Type.String() });

export const errorResponses = {
  400: {
    ...ErrorBody,
    description:
      'Missing or over-length question or query, or a malformed field: a wrong type (a JSON array where a string belongs), a site_slug that is not valid text (a lone surrogate), or a JSON body past a limit (README, Request limits).',
  },
  405: { ...ErrorBody, description: 'Not a POST.' },
  429: { ...ErrorBody, description: 'The per-IP limit (shared by both endpoints) was hit; see Retry-After.' },
  500: { ...ErrorBody, description: 'An unexpected error.' },
  503: {
    ...ErrorBody,
    description:
      'The vector index, the model provider, the embedded sentence model (its thread stopped, or did not answer within 10 s) or the rate limit store (Redis, with REDIS_URL) is unavailable.',
  },
};
