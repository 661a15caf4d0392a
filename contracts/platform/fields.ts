import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { withDefault } from '../../infra/schema/record-fields.js';

/*
 * The host platform's resources, each field declared once, as events carry them (snake_case, no
 * `o:`): the events' payloads (events.ts) and the read models' documents (documents.ts) are
 * these types; the write bodies and their mapping (commands/platform/schemas.ts), the fixture's
 * sections (commands/platform/importer.ts), a new record's defaults (`default`, filled in by
 * fieldsOf, infra/schema/record-fields.ts) and the upcasting of events stored before a field
 * existed (upcasters.ts) are derived from them. The annotations (descriptions, limits) are those
 * the API documents for the write bodies; the representations (routes/platform/definitions.ts)
 * say what a response shows.
 */

/** The limits the deciders' rules (commands/platform/kinds.ts) and the bodies hold values to. */
export const LIMITS = {
  title: 1000,
  slug: 190,
  description: 100_000,
  text: 1_000_000,
  rights: 300,
  layout: 190,
} as const;

const Id = Type.Integer({ minimum: 1 });
const Ids = Type.Array(Id);
const Nullable = <T extends TSchema>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });
const Title = Type.String({ maxLength: LIMITS.title, description: 'The title.' });
const IsPublic = withDefault(Type.Boolean({ description: 'false: only Editor and above see it. Default true.' }), true);
/** An object of any keys: a layout's settings, a block's data. */
const Settings = Type.Record(Type.String(), Type.Unknown());

export const SiteFields = Type.Object({
  slug: Type.String({ maxLength: LIMITS.slug, description: 'Unique among sites.' }),
  title: Title,
});
export type SiteFields = Static<typeof SiteFields>;

export const ItemSetFields = Type.Object({
  title: Title,
  is_public: IsPublic,
  site_ids: withDefault(Ids, []),
});
export type ItemSetFields = Static<typeof ItemSetFields>;

export const ItemFields = Type.Object({
  title: Title,
  description: withDefault(
    Type.String({ maxLength: LIMITS.description, description: 'Plain text. Default empty.' }),
    '',
  ),
  is_public: IsPublic,
  item_set_ids: withDefault(Ids, []),
  site_ids: withDefault(Ids, []),
  /**
   * A Creative Commons or RightsStatements.org URI in its http:// form (commands/platform/rights.ts);
   * null: none. Added on 2026-12-07 (commit 095f95e): events stored before lack it, and their
   * upcaster gives them this default (upcasters.ts), which is what those items had.
   */
  rights: withDefault(
    Nullable(
      Type.String({ maxLength: LIMITS.rights }),
      'A Creative Commons or RightsStatements.org URI (an `https://` one is stored as `http://`, as IIIF wants); anything else is a 422. null removes it.',
    ),
    null,
  ),
});
export type ItemFields = Static<typeof ItemFields>;

export const MediaFields = Type.Object({
  item_id: Id,
  title: Title,
  text: withDefault(
    Type.String({
      maxLength: LIMITS.text,
      description: 'Its text (a transcription), which the chatbot indexes. Default empty.',
    }),
    '',
  ),
  is_public: IsPublic,
});
export type MediaFields = Static<typeof MediaFields>;

export const PageBlock = Type.Object(
  {
    layout: Type.String({ minLength: 1, maxLength: LIMITS.layout, description: "The block's layout (`html`, ...)." }),
    data: withDefault(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'The layout\'s data (`{"html": "..."}`). Default `{}`.',
      }),
      {},
    ),
  },
  { description: 'A block of the page.' },
);
export type PageBlock = Static<typeof PageBlock>;

/** A site page as saved: what page version history records and restores. */
export const SitePageFields = Type.Object({
  site_id: Id,
  slug: Type.String({ maxLength: LIMITS.slug, description: "Unique among the site's pages." }),
  title: Title,
  is_public: IsPublic,
  layout: withDefault(
    Nullable(Type.String({ maxLength: LIMITS.layout }), "The page layout, or null (the default) for the site's."),
    null,
  ),
  /** A body may give null for `{}`, which is what the field holds. */
  layout_data: withDefault(Settings, {}),
  blocks: withDefault(Type.Array(PageBlock), []),
});
export type SitePageFields = Static<typeof SitePageFields>;
