import { readFile } from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { projectFile } from '../../infra/project-root.js';

const WIDGET_FILE = projectFile('widget/widget.js');

/** GET /widget.js: the embeddable directory widget, a static script any site may load. */
export async function widgetRoutes(app: FastifyInstance): Promise<void> {
  const script = await readFile(WIDGET_FILE, 'utf8');
  app.get(
    '/widget.js',
    {
      schema: {
        tags: ['widget'],
        summary: 'The embeddable directory widget',
        description:
          'Load with `<script src="{base_url}/widget.js" defer></script>` after one or more `<div data-catalog-az data-token="TOKEN">` containers. ' +
          'Optional attributes: `data-subject` (subject handle: locks the widget to it), `data-list` (list handle: that list in its order), ' +
          '`data-limit` (maximum number of cards), `data-hide-filters="true"` (search box only). ' +
          "Cards use the library's brand color and every link goes through the tracked redirect.",
        produces: ['application/javascript'],
        response: { 200: Type.String({ description: 'JavaScript.' }) },
      },
    },
    async (_request, reply) => {
      reply.header('Access-Control-Allow-Origin', '*');
      reply.header('Cache-Control', 'public, max-age=300');
      reply.header('X-Content-Type-Options', 'nosniff');
      return reply.type('application/javascript; charset=utf-8').send(script);
    },
  );
}
