import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { sometimesSent } from '../http/documented-responses.js';
import type { RoutesOptions, RoutesPlugin } from '../http/routes-plugin.js';
import { refuseOtherMethods } from '../http/method-not-allowed.js';
import { answerQuestion } from '../../queries/chatbot/chat.js';
import type { ChatbotQueryPorts } from '../../queries/chatbot/services.js';
import { streamAnswer } from '../../queries/chatbot/chat-stream.js';
import { searchCollection } from '../../queries/chatbot/search.js';
import { chatWidgetRoutes } from './chat-widget.js';
import { CORS_NOTE, registerChatbotCors } from './cors.js';
import { EVENT_STREAM, sendEventStream, wantsEventStream } from './event-stream.js';
import { questionRoutes } from './questions.js';
import { chatbotRateLimit } from './rate-limit.js';
import { parseChatRequest, parseSearchRequest } from './request.js';
import {
  ChatBody,
  ChatEventStreamSchema,
  ChatResponseSchema,
  errorResponses,
  SearchBody,
  SearchResponseSchema,
} from './schemas.js';

const CHAT = '/chatbot/api/chat';
const SEARCH = '/chatbot/api/search';
const TAGS = ['Chatbot'];
const CONSUMES = ['application/json', 'application/x-www-form-urlencoded'];

/**
 * The body schemas document the API; the bodies themselves are checked by parseChatRequest and
 * parseSearchRequest, which give the seed's own messages and accept form values as strings.
 */
const documentOnly = () => () => true;

/**
 * POST /chatbot/api/chat and POST /chatbot/api/search, public and limited per client IP
 * together, callable from pages of other origins (CORS, in their own scope); and the chat
 * panel's script. They take the ports the queries read of the module's services
 * (app/modules/chatbot.ts), not its indexing queues.
 */
export const chatbotRoutes =
  (services: ChatbotQueryPorts): RoutesPlugin =>
  async (app, { runtime }) => {
    await app.register(chatbotApiRoutes(services), { runtime });
    await app.register(chatWidgetRoutes, { runtime });
    await app.register(questionRoutes(services.questions), { runtime });
  };

/**
 * Not typed from the body schemas: they only document the bodies (documentOnly), so a body
 * here is as unknown as it arrives until parseChatRequest or parseSearchRequest checks it.
 */
const chatbotApiRoutes =
  (services: ChatbotQueryPorts): FastifyPluginAsync<RoutesOptions> =>
  async (app, { runtime }) => {
    const onRequest = await chatbotRateLimit(app, runtime);
    registerChatbotCors(app, runtime.config.chatbotAllowedOrigins, [CHAT, SEARCH]);

    app.post(
      CHAT,
      {
        onRequest,
        validatorCompiler: documentOnly,
        schema: {
          tags: TAGS,
          summary: 'Answer a question from the collection',
          description:
            'Retrieves the nearest public content (items, media, blog posts, site pages) with the given filters, numbers it ' +
            'as evidence and answers citing it as [N]. JSON or form body. Shares a per-IP limit with search ' +
            '(CHATBOT_RATE_LIMIT per CHATBOT_RATE_WINDOW_SECONDS, default 10 per 60); the IP is taken from ' +
            'Edge-Connecting-IP, then the first X-Forwarded-For address, then the remote address; with TRUST_PROXY set, only headers set by those proxies count. ' +
            CORS_NOTE,
          consumes: CONSUMES,
          body: ChatBody,
          response: {
            200: {
              description: 'The answer: JSON, or with `Accept: text/event-stream` a stream of Server-Sent Events.',
              content: {
                'application/json': { schema: ChatResponseSchema },
                [EVENT_STREAM]: { schema: ChatEventStreamSchema },
              },
              headers: {
                'Cache-Control': sometimesSent(
                  Type.String({ description: '`no-cache` on the event stream, so no proxy holds its events back.' }),
                ),
              },
            },
            ...errorResponses,
          },
        },
      },
      async (request, reply) => {
        // Checked first on both paths: a refused request gets its 400 before any event.
        const params = parseChatRequest(request.body);
        if (!wantsEventStream(request.headers.accept))
          return await services.questions.recorded(params, await answerQuestion(services, params));
        const controller = new AbortController();
        return sendEventStream(request, reply, streamAnswer(services, params, controller.signal), controller);
      },
    );

    app.post(
      SEARCH,
      {
        onRequest,
        validatorCompiler: documentOnly,
        schema: {
          tags: TAGS,
          summary: 'Semantic search over the collection',
          description:
            'Fetches the nearest chunks (at most 100, or 150 with site_id) and returns one result per resource URL with its ' +
            'best cosine distance, nearest first; total counts the distinct resources among the fetched chunks. JSON or form body. ' +
            CORS_NOTE,
          consumes: CONSUMES,
          body: SearchBody,
          response: { 200: SearchResponseSchema, ...errorResponses },
        },
      },
      async (request) => searchCollection(services, parseSearchRequest(request.body)),
    );

    refuseOtherMethods(app, CHAT, ['POST']);
    refuseOtherMethods(app, SEARCH, ['POST']);
  };
