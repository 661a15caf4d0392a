import { readFile } from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import type { RoutesPlugin } from './http/routes-plugin.js';
import { projectFile } from '../infra/project-root.js';

export interface EmbedScript {
  /** The URL it is served at, e.g. `/widget.js`. */
  url: string;
  /** The file under the project root, e.g. `widget/widget.js`. */
  file: string;
  summary: string;
  description: string;
}

/**
 * A script other sites embed (the directory widget, the chat panel): read once, served to any
 * origin with a short cache and its JavaScript type.
 */
export function embedScriptRoute(script: EmbedScript): RoutesPlugin {
  return async (app) => {
    const text = await readFile(projectFile(script.file), 'utf8');
    app.get(
      script.url,
      {
        schema: {
          tags: ['widget'],
          summary: script.summary,
          description: script.description,
          produces: ['application/javascript'],
          response: { 200: Type.String({ description: 'JavaScript.' }) },
        },
      },
      async (_request, reply) => {
        reply.header('Access-Control-Allow-Origin', '*');
        reply.header('Cache-Control', 'public, max-age=300');
        reply.header('X-Content-Type-Options', 'nosniff');
        return reply.type('application/javascript; charset=utf-8').send(text);
      },
    );
  };
}
