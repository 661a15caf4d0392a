import { embedScriptRoute } from '../embed-script.js';

/** GET /widget.js: the embeddable directory widget, a static script any site may load. */
export const widgetRoutes = embedScriptRoute({
  url: '/widget.js',
  file: 'widget/widget.js',
  summary: 'The embeddable directory widget',
  description:
    'Load this script (a script element with `src` set to `{base_url}/widget.js` and `defer`) after one or more `div` containers with `data-catalog-az` and `data-token="TOKEN"` attributes. ' +
    'Optional attributes: `data-subject` (subject handle: locks the widget to it), `data-list` (list handle: that list in its order), ' +
    '`data-limit` (maximum number of cards), `data-hide-filters="true"` (search box only). ' +
    "Cards use the library's brand color and every link goes through the tracked redirect.",
});
