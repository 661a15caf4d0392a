/** The fields of each host platform resource, as events carry them (snake_case, no `o:`). */
export interface SiteFields {
  slug: string;
  title: string;
}

export interface ItemSetFields {
  title: string;
  is_public: boolean;
  site_ids: number[];
}

export interface ItemFields {
  title: string;
  description: string;
  is_public: boolean;
  item_set_ids: number[];
  site_ids: number[];
  /**
   * A Creative Commons or RightsStatements.org URI in its http:// form (commands/platform/rights.ts);
   * null: none. Events stored before items had it lack it: their upcaster gives null
   * (contracts/platform/upcasters.ts).
   */
  rights: string | null;
}

export interface MediaFields {
  item_id: number;
  title: string;
  text: string;
  is_public: boolean;
}

export interface PageBlock {
  layout: string;
  data: Record<string, unknown>;
}

/** A site page as saved: what page version history records and restores. */
export interface SitePageFields {
  site_id: number;
  slug: string;
  title: string;
  is_public: boolean;
  layout: string | null;
  layout_data: Record<string, unknown>;
  blocks: PageBlock[];
}
