import { ConflictError, NotFoundError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { AssetFolderEvent } from './events.js';
import { invalid, requireTitle } from './rules.js';

/**
 * Slugs and the folder tree are set-wide facts: the handler reads them from the read model,
 * works out the slug and checks the parent, and passes the results in the command.
 */
export type CreateAssetFolder = DomainCommand<'CreateAssetFolder', { id: number; title: string; slug: string; parent_id: number | null }>;
/** The folder's new title, slug and parent (the handler fills in the unchanged ones). */
export type UpdateAssetFolder = DomainCommand<'UpdateAssetFolder', { title: string; slug: string; parent_id: number | null }>;
export type DeleteAssetFolder = DomainCommand<'DeleteAssetFolder', Record<string, never>>;
export type AssetFolderCommand = CreateAssetFolder | UpdateAssetFolder | DeleteAssetFolder;

export interface AssetFolderState {
  status: 'new' | 'live' | 'deleted';
  id: number;
  title: string;
  slug: string;
  parent_id: number | null;
}

export const assetFolderDecider: Decider<AssetFolderState, AssetFolderCommand, AssetFolderEvent> = {
  initialState: () => ({ status: 'new', id: 0, title: '', slug: '', parent_id: null }),

  evolve(state, event) {
    switch (event.type) {
      case 'AssetFolderCreated':
        return { status: 'live', ...event.data };
      case 'AssetFolderRenamed':
        return { ...state, title: event.data.title, slug: event.data.slug };
      case 'AssetFolderMoved':
        return { ...state, parent_id: event.data.parent_id, slug: event.data.slug };
      case 'AssetFolderDeleted':
        return { ...state, status: 'deleted' };
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'CreateAssetFolder': {
        if (state.status !== 'new') throw new ConflictError(`Folder ${command.data.id} already exists.`);
        const title = requireTitle(command.data.title, 'title');
        if (command.data.parent_id === command.data.id) throw invalid('parent_id', 'A folder cannot be its own parent.');
        return [{ type: 'AssetFolderCreated', data: { ...command.data, title } }];
      }
      case 'UpdateAssetFolder': {
        if (state.status !== 'live') throw new NotFoundError('Folder not found.');
        const title = requireTitle(command.data.title, 'title');
        const { slug, parent_id } = command.data;
        if (parent_id === state.id) throw invalid('parent_id', 'A folder cannot be moved into itself.');
        const events: AssetFolderEvent[] = [];
        if (title !== state.title || (slug !== state.slug && parent_id === state.parent_id)) {
          events.push({ type: 'AssetFolderRenamed', data: { id: state.id, title, slug } });
        }
        if (parent_id !== state.parent_id) events.push({ type: 'AssetFolderMoved', data: { id: state.id, parent_id, slug } });
        return events;
      }
      case 'DeleteAssetFolder':
        if (state.status !== 'live') throw new NotFoundError('Folder not found.');
        return [{ type: 'AssetFolderDeleted', data: { id: state.id } }];
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
