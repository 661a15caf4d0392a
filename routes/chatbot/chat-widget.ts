import { embedScriptRoute } from '../embed-script.js';

/** GET /chat-widget.js: the embeddable chat panel, a static script any site may load. */
export const chatWidgetRoutes = embedScriptRoute({
  url: '/chat-widget.js',
  file: 'widget/chat-widget.js',
  summary: 'The embeddable chat panel',
  description:
    'Load this script (a script element with `src` set to `{base_url}/chat-widget.js` and `defer`) after one or more `div` containers with a `data-collection-chat` attribute. ' +
    'Each renders a question box that calls POST /chatbot/api/chat on this server (the streamed answer, `Accept: text/event-stream`: its text shows as it comes and the live region announces the finished answer once) and shows the answer with its numbered sources. ' +
    "Optional attributes: `data-site-slug` (source URLs become `/s/{slug}/...`), `data-site-id` (only that site's resources), " +
    "`data-item-set-ids` (comma-separated item set ids: only those sets' items and their media).",
});
