import type { Decider, DomainCommand } from '../decider.js';
import { mustExist } from '../decider-rules.js';
import type { SitePageFields } from '../../contracts/platform/fields.js';
import { revertedPage, sitePageDecider } from '../platform/kinds.js';
import { SITE_PAGE_REVERTED } from '../../contracts/platform/events.js';
import type { ResourceCommand, ResourceState } from '../platform/resource-decider.js';
import type { SitePageEvent } from '../../contracts/page-versioning/events.js';
import { revertSummary } from './revert-summary.js';

/** The version a revert goes back to: its id and when it was saved (`YYYY-MM-DD HH:MM:SS`). */
export interface RevertTarget {
  id: number;
  saved_at: string;
  /** The page's fields as that version saved them. */
  fields: SitePageFields;
}

/** summary: the editor's note; blank or absent means the default note. */
export type RevertSitePage = DomainCommand<'RevertSitePage', { target: RevertTarget; summary?: string | null }>;

export type SitePageCommand = ResourceCommand<SitePageFields> | RevertSitePage;

export type SitePageState = ResourceState<SitePageFields>;

/** The page's fields go back to the target version's, with the editor's note or the default one. */
function revert({ data }: RevertSitePage, state: SitePageState): SitePageEvent[] {
  mustExist(state, 'Site page');
  const { target } = data;
  return [
    {
      type: SITE_PAGE_REVERTED,
      data: {
        id: state.id,
        fields: target.fields,
        reverted_to_version_id: target.id,
        summary: revertSummary(data.summary, target.id, target.saved_at),
      },
    },
  ];
}

/**
 * The site page decider with page version history's one extra command. Create, update and
 * delete are the platform's own; both fold SitePageReverted with revertedPage, so both see the
 * same page whichever of them loads the stream.
 */
export const versionedSitePageDecider: Decider<SitePageState, SitePageCommand, SitePageEvent> = {
  initialState: () => sitePageDecider.initialState(),

  evolve(state, event) {
    switch (event.type) {
      case 'SitePageReverted':
        return revertedPage(state, event.data);
      default:
        return sitePageDecider.evolve(state, event);
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'RevertSitePage':
        return revert(command, state);
      case 'Create':
      case 'Update':
      case 'Delete':
      case 'ParentDeleted':
        return sitePageDecider.decide(command, state);
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
