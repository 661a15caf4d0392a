import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Runtime } from '../../../app/kernel.js';
import { EMBED_QUEUE, INDEX_QUEUE } from '../../../workers/chatbot/index-queue.js';

/** A small public collection with private corners, on two sites. */
export const chatbotFixture = {
  sites: [
    { id: 1, slug: 'main', title: 'Main site' },
    { id: 2, slug: 'annex', title: 'Annex' },
  ],
  item_sets: [
    { id: 10, title: 'Maps', site_ids: [1] },
    { id: 20, title: 'Instruments', site_ids: [1, 2] },
  ],
  items: [
    {
      id: 100,
      title: 'Map of Lisbon',
      item_set_ids: [10],
      site_ids: [1],
      is_public: true,
      description: 'An engraved map of Lisbon showing the harbour before the great earthquake of 1755.',
      media: [
        {
          id: 1000,
          title: 'Map scan',
          text: 'Transcription of the map legend: castle of Sao Jorge, harbour, cathedral.',
          is_public: true,
        },
        {
          id: 1001,
          title: 'Restorer notes',
          text: 'Confidential restorer notes about the map harbour damage.',
          is_public: false,
        },
      ],
    },
    {
      id: 101,
      title: 'Stradivari violin',
      item_set_ids: [20],
      site_ids: [1, 2],
      is_public: true,
      description: 'A violin made by Antonio Stradivari in Cremona in 1715. It was donated to the museum in 1950.',
      media: [
        { id: 1010, title: 'Violin photograph', text: 'Photograph of the violin scroll and varnish.', is_public: true },
      ],
    },
    {
      id: 102,
      title: 'Harpsichord',
      item_set_ids: [20],
      site_ids: [2],
      is_public: true,
      description:
        'A Flemish harpsichord with a painted lid, built in Antwerp in 1640. Attack: a &lt;script&gt;alert(1)&lt;/script&gt; in the inventory.',
    },
    {
      id: 103,
      title: 'Secret ledger',
      item_set_ids: [10],
      site_ids: [1],
      is_public: false,
      description: 'A private ledger of violin purchases and harbour maps, not for the public.',
      media: [{ id: 1030, title: 'Ledger page', text: 'Ledger page listing violin purchases.', is_public: true }],
    },
  ],
  site_pages: [
    {
      id: 5,
      site_id: 1,
      slug: 'visit',
      title: 'Visiting the museum',
      is_public: true,
      blocks: [
        {
          layout: 'html',
          data: {
            html: '<p>The museum opens at nine on weekdays and at ten on Saturdays.</p><p>Entry is free on Sundays.</p>',
          },
        },
      ],
    },
    {
      id: 6,
      site_id: 2,
      slug: 'staff',
      title: 'Staff only',
      is_public: false,
      blocks: [{ layout: 'html', data: { html: '<p>Staff violin storage codes and harbour map vault codes.</p>' } }],
    },
  ],
};

export interface PostFields {
  title: string;
  slug: string;
  excerpt?: string;
  content: string;
  status: 'draft' | 'published' | 'scheduled';
  published_at: string | null;
  site_ids?: number[];
  tags?: string[];
}

/** Appends a blog post event as the blog module would, then waits for the index to follow. */
export async function writePost(
  runtime: Runtime,
  id: number,
  fields: PostFields | null,
  type = 'BlogPostCreated',
): Promise<void> {
  const data =
    fields === null
      ? { id }
      : {
          id,
          fields: {
            excerpt: '',
            tags: [],
            site_ids: [1],
            author_id: 1,
            category_id: null,
            featured_image_asset_id: null,
            featured_image_url: null,
            ...fields,
          },
        };
  await runtime.eventStore.append(
    `blog_post-${id}`,
    [{ type, data, metadata: { userId: 1, at: '2026-01-01 00:00:00' } }],
    'any',
  );
  await settle(runtime);
}

/** Waits until the read models and the index jobs (the model's vectors included) have caught up with the log. */
export async function settle(runtime: Runtime): Promise<void> {
  await runtime.projections.catchUp();
  await runtime.jobs.drain(INDEX_QUEUE);
  await runtime.jobs.drain(EMBED_QUEUE);
}

export function post(
  app: FastifyInstance,
  path: 'search' | 'chat',
  payload: object,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url: `/chatbot/api/${path}`, payload, headers });
}

export function form(
  app: FastifyInstance,
  path: 'search' | 'chat',
  body: string,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `/chatbot/api/${path}`,
    payload: body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

export interface SearchBody {
  results: {
    resource_type: string;
    resource_id: number;
    title: string;
    url: string;
    distance: number;
    snippet: string;
  }[];
  total: number;
  page: number;
  per_page: number;
}

export interface ChatBody {
  answer_html: string;
  sources: {
    citation_num: number;
    title: string;
    url: string;
    resource_type: string;
    resource_id: number;
    snippet: string;
  }[];
}

/** Every resource key (`item-100`) the index returns for a broad query. */
export async function indexedKeys(
  app: FastifyInstance,
  query = 'violin harbour map museum harpsichord ledger staff',
): Promise<string[]> {
  const res = await post(app, 'search', { query, per_page: 50 });
  const body = JSON.parse(res.body) as SearchBody;
  return body.results.map((r) => `${r.resource_type}-${r.resource_id}`).sort();
}
