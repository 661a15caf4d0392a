import { Type, type Static } from '@sinclair/typebox';

/**
 * The host platform's write bodies, one per kind, in the representation's `o:` keys: the routes
 * validate them (routes/platform/resource-routes.ts) and each kind's `fromBody`
 * (routes/platform/definitions.ts) takes its body's type and names the fields the handlers
 * (handlers.ts) write. Every key is optional: a create's required ones are checked by the route,
 * whose 422 names each one missing; the deciders (kinds.ts) check what a value means.
 */

export const Ref = Type.Object(
  { 'o:id': Type.Integer({ minimum: 1 }) },
  { additionalProperties: true, description: 'A record by its `o:id`; other keys (`@id`) are ignored.' },
);
const Title = Type.String({ maxLength: 1000, description: 'The title.' });
const IsPublic = Type.Boolean({ description: 'false: only Editor and above see it. Default true.' });
/** A representation read may be sent back: the keys a body does not list are accepted and ignored. */
const OPEN_BODY = {
  additionalProperties: true,
  description:
    'Only the keys listed are read; any other key (`@context`, `@id`, `o:id`, `o:created`, ...) is accepted and ignored. On a create a key left out takes its default; on an update it keeps its value.',
};

/** POST, PUT and PATCH /api/sites. */
export const SiteBody = Type.Object(
  {
    'o:slug': Type.Optional(Type.String({ maxLength: 190, description: 'Unique among sites.' })),
    'o:title': Type.Optional(Title),
  },
  OPEN_BODY,
);

/** POST, PUT and PATCH /api/item_sets. */
export const ItemSetBody = Type.Object(
  {
    'o:title': Type.Optional(Title),
    'o:is_public': Type.Optional(IsPublic),
    'o:site': Type.Optional(Type.Array(Ref, { description: 'The sites it belongs to (replaces the list).' })),
  },
  OPEN_BODY,
);

/** POST, PUT and PATCH /api/items. */
export const ItemBody = Type.Object(
  {
    'o:title': Type.Optional(Title),
    'o:description': Type.Optional(Type.String({ maxLength: 100_000, description: 'Plain text. Default empty.' })),
    'o:is_public': Type.Optional(IsPublic),
    'o:item_set': Type.Optional(Type.Array(Ref, { description: 'The item sets it is in (replaces the list).' })),
    'o:site': Type.Optional(Type.Array(Ref, { description: 'The sites it belongs to (replaces the list).' })),
    'o:rights': Type.Optional(
      Type.Union([Type.String({ maxLength: 300 }), Type.Null()], {
        description:
          'A Creative Commons or RightsStatements.org URI (an `https://` one is stored as `http://`, as IIIF wants); anything else is a 422. null removes it.',
      }),
    ),
  },
  OPEN_BODY,
);

/** POST, PUT and PATCH /api/media. */
export const MediaBody = Type.Object(
  {
    'o:item': Type.Optional({ ...Ref, description: 'The item it belongs to.' }),
    'o:title': Type.Optional(Title),
    'o:text': Type.Optional(
      Type.String({
        maxLength: 1_000_000,
        description: 'Its text (a transcription), which the chatbot indexes. Default empty.',
      }),
    ),
    'o:is_public': Type.Optional(IsPublic),
  },
  OPEN_BODY,
);

const Block = Type.Object(
  {
    'o:layout': Type.String({ minLength: 1, maxLength: 190, description: "The block's layout (`html`, ...)." }),
    'o:data': Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'The layout\'s data (`{"html": "..."}`). Default `{}`.',
      }),
    ),
  },
  { description: 'A block of the page.' },
);

/** POST, PUT and PATCH /api/site_pages. */
export const SitePageBody = Type.Object(
  {
    'o:site': Type.Optional({ ...Ref, description: 'The site the page is on.' }),
    'o:slug': Type.Optional(Type.String({ maxLength: 190, description: "Unique among the site's pages." })),
    'o:title': Type.Optional(Title),
    'o:is_public': Type.Optional(IsPublic),
    'o:layout': Type.Optional(
      Type.Union([Type.String({ maxLength: 190 }), Type.Null()], {
        description: "The page layout, or null (the default) for the site's.",
      }),
    ),
    'o:layout_data': Type.Optional(
      Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
        description: "The layout's settings; null is `{}` (the default).",
      }),
    ),
    'o:block': Type.Optional(
      Type.Array(Block, { description: "The page's blocks, in order (replaces them all). Default none." }),
    ),
  },
  OPEN_BODY,
);

export type RefInput = Static<typeof Ref>;
export type SiteInput = Static<typeof SiteBody>;
export type ItemSetInput = Static<typeof ItemSetBody>;
export type ItemInput = Static<typeof ItemBody>;
export type MediaInput = Static<typeof MediaBody>;
export type SitePageInput = Static<typeof SitePageBody>;
