import { Type } from '@sinclair/typebox';
import type { RoutesPlugin } from '../http/routes-plugin.js';
import { refuseOtherMethods } from '../http/method-not-allowed.js';
import { sqlTimestamp } from '../../infra/clock/sql-timestamp.js';
import type { RecordedQuestion } from '../../infra/question-log/port.js';
import type { PatronQuestions } from '../../queries/chatbot/questions.js';
import { PageQuery, pageWindow, setPaginationHeaders } from '../json-ld.js';
import { parseAnswered, rangeFilter } from './question-filters.js';

const LIST = '/api/chatbot/questions';
const SUMMARY = '/api/chatbot/questions/summary';
const TAGS = ['Chatbot'];
const ROLES = 'Editor and above (API key or session); 401 without credentials, 403 below Editor.';
const RETENTION =
  'Questions are kept CHATBOT_QUESTION_RETENTION_DAYS (default 90; 0 records none) and are never served past it. ' +
  'A record holds no client address, cookie or other detail of the request.';

const rangeProperties = {
  site_id: Type.Optional(Type.Integer({ minimum: 1, description: 'Only questions asked with this site_id.' })),
  since: Type.Optional(
    Type.String({ description: 'Asked at or after: a day (YYYY-MM-DD) or a moment (YYYY-MM-DD HH:MM:SS), UTC.' }),
  ),
  until: Type.Optional(Type.String({ description: 'Asked at or before: a day (the whole day) or a moment, UTC.' })),
};
const ListQuery = Type.Object({
  ...PageQuery,
  answered: Type.Optional(
    Type.String({ description: '1/true: only answered questions; 0/false: only those that found nothing.' }),
  ),
  ...rangeProperties,
});
const SummaryQuery = Type.Object({
  ...rangeProperties,
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'Entries in each ranking (1 to 50).' }),
  ),
});

const CitedResourceSchema = Type.Object({
  resource_type: Type.String(),
  resource_id: Type.Integer(),
  title: Type.String(),
  url: Type.String(),
});
const QuestionSchema = Type.Object({
  id: Type.Integer(),
  question: Type.String(),
  asked_at: Type.String({ description: 'UTC, YYYY-MM-DD HH:MM:SS' }),
  site_id: Type.Union([Type.Integer(), Type.Null()]),
  answered: Type.Boolean({ description: 'True when the answer cited at least one resource.' }),
  sources: Type.Array(CitedResourceSchema, { description: 'The resources the answer cited, in citation order.' }),
});
const SummarySchema = Type.Object({
  questions: Type.Integer(),
  answered: Type.Integer(),
  unanswered: Type.Integer(),
  topics: Type.Array(Type.Object({ word: Type.String(), questions: Type.Integer() }), {
    description: 'The words most questions hold (function words left out), with how many questions hold each.',
  }),
  most_cited: Type.Array(
    Type.Object({
      resource_type: Type.String(),
      resource_id: Type.Integer(),
      title: Type.String(),
      citations: Type.Integer(),
    }),
    { description: 'The resources cited by most questions.' },
  ),
  unanswered_most_asked: Type.Array(
    Type.Object({ question: Type.String(), count: Type.Integer(), last_asked_at: Type.String() }),
    {
      description:
        'Questions that found nothing, grouped apart from case, spaces and end punctuation, most asked first.',
    },
  ),
});

function representQuestion(q: RecordedQuestion) {
  return {
    id: q.id,
    question: q.question,
    asked_at: sqlTimestamp(q.askedAt),
    site_id: q.siteId,
    answered: q.answered,
    sources: q.sources,
  };
}

/** What patrons asked the chatbot, for librarians: the list and its summary (roles: app/permissions.ts). */
export const questionRoutes =
  (questions: PatronQuestions): RoutesPlugin =>
  async (app, { runtime }) => {
    const baseUrl = runtime.config.baseUrl;

    app.get(
      LIST,
      {
        schema: {
          tags: TAGS,
          summary: 'List the questions patrons asked the chatbot, newest first',
          description: `Newest first (asked_at, then id). per_page default 25, above 100 treated as 100; total in Platform-Total-Results, pages in Link. ${ROLES} ${RETENTION}`,
          querystring: ListQuery,
          response: { 200: Type.Array(QuestionSchema) },
        },
      },
      async (request, reply) => {
        const q = request.query;
        const filter = rangeFilter(q);
        const answered = parseAnswered(q.answered);
        if (answered !== undefined) filter.answered = answered;
        const window = pageWindow(q, 25);
        const page = await questions.list(filter, window.skip, window.perPage);
        setPaginationHeaders(request, reply, baseUrl, page.total, window);
        return page.questions.map(representQuestion);
      },
    );

    app.get(
      SUMMARY,
      {
        schema: {
          tags: TAGS,
          summary: 'Summarise the questions patrons asked the chatbot',
          description: `Counts, the most frequent topic words, the most cited resources and the unanswered questions asked most often, over the questions kept (filtered by site_id, since, until). ${ROLES} ${RETENTION}`,
          querystring: SummaryQuery,
          response: { 200: SummarySchema },
        },
      },
      async (request) => {
        const summary = await questions.summary(rangeFilter(request.query), request.query.limit ?? 10);
        return {
          questions: summary.questions,
          answered: summary.answered,
          unanswered: summary.unanswered,
          topics: summary.topics,
          most_cited: summary.most_cited,
          unanswered_most_asked: summary.unanswered_most_asked.map((u) => ({
            question: u.question,
            count: u.count,
            last_asked_at: sqlTimestamp(u.last_asked_at),
          })),
        };
      },
    );

    refuseOtherMethods(app, LIST, ['GET']);
    refuseOtherMethods(app, SUMMARY, ['GET']);
  };
