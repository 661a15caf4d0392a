import type { DomainCommand } from '../decider.js';
import type { DatabaseLinkClicked } from '../../contracts/directory/events.js';

export type RecordClick = DomainCommand<'RecordClick', { handle: string; at: Date }>;

/**
 * A click is a fact with no rule to break (the route has already checked that the database is
 * visible), so there is no state to fold: the decision depends on the command alone.
 */
export function decideClick(command: RecordClick): DatabaseLinkClicked[] {
  return [
    { type: 'DatabaseLinkClicked', data: { handle: command.data.handle, clicked_at: command.data.at.toISOString() } },
  ];
}
