import type { Decider, DomainCommand } from '../decider.js';
import { deletedRecord, liveRecord, mustExist, mustNotExist, newRecord, type RecordState } from '../decider-rules.js';
import type { AssetFolderEvent, AssetFolderFields } from '../../contracts/assets/events.js';
import { invalid, requireTitle } from './rules.js';

/**
 * Slugs and the folder tree are set-wide facts: the handler reads them from the read model (and
 * places the folder in the tree stream, commands/assets/folder-tree-decider.ts), works out the
 * slug and checks the parent, and passes the results in the command.
 */
export type CreateAssetFolder = DomainCommand<'CreateAssetFolder', { id: number } & AssetFolderFields>;
/** The folder's new title, slug and parent (the handler fills in the unchanged ones). */
export type UpdateAssetFolder = DomainCommand<'UpdateAssetFolder', AssetFolderFields>;
export type DeleteAssetFolder = DomainCommand<'DeleteAssetFolder', Record<string, never>>;
/**
 * A folder the tree stream removed (with its parent): deleted, or never written when its create
 * placed it and is still on its way; the append makes that create conflict and be refused.
 */
export type RemoveAssetFolder = DomainCommand<'RemoveAssetFolder', { id: number }>;
export type AssetFolderCommand = CreateAssetFolder | UpdateAssetFolder | DeleteAssetFolder | RemoveAssetFolder;

/** withdrawn: its parent was deleted before it was created; it never will be. */
export type AssetFolderState = RecordState<AssetFolderFields>;

const LABEL = 'Folder';

function create({ data }: CreateAssetFolder, state: AssetFolderState): AssetFolderEvent[] {
  const { id, ...given } = data;
  if (state.status === 'withdrawn') throw invalid('parent_id', `Folder ${given.parent_id} does not exist.`);
  mustNotExist(state, LABEL, id);
  const fields = { ...given, title: given.title.trim() };
  requireTitle(fields.title, 'title');
  if (fields.parent_id === id) throw invalid('parent_id', 'A folder cannot be its own parent.');
  return [{ type: 'AssetFolderCreated', data: { id, ...fields } }];
}

/** A rename, a move, both, or nothing. */
function update({ data }: UpdateAssetFolder, state: AssetFolderState): AssetFolderEvent[] {
  const before = mustExist(state, LABEL);
  const title = requireTitle(data.title, 'title');
  const { slug, parent_id } = data;
  if (parent_id === state.id) throw invalid('parent_id', 'A folder cannot be moved into itself.');
  const events: AssetFolderEvent[] = [];
  if (title !== before.title || (slug !== before.slug && parent_id === before.parent_id)) {
    events.push({ type: 'AssetFolderRenamed', data: { id: state.id, title, slug } });
  }
  if (parent_id !== before.parent_id)
    events.push({ type: 'AssetFolderMoved', data: { id: state.id, parent_id, slug } });
  return events;
}

function remove(state: AssetFolderState): AssetFolderEvent[] {
  mustExist(state, LABEL);
  return [{ type: 'AssetFolderDeleted', data: { id: state.id } }];
}

function removedFromTree({ data }: RemoveAssetFolder, state: AssetFolderState): AssetFolderEvent[] {
  if (state.status === 'new') return [{ type: 'AssetFolderWithdrawn', data: { id: data.id } }];
  return state.status === 'live' ? remove(state) : [];
}

export const assetFolderDecider: Decider<AssetFolderState, AssetFolderCommand, AssetFolderEvent> = {
  initialState: () => newRecord(),

  evolve(state, event) {
    switch (event.type) {
      case 'AssetFolderCreated': {
        const { id, ...fields } = event.data;
        return liveRecord(id, fields);
      }
      case 'AssetFolderRenamed':
        return state.fields
          ? { ...state, fields: { ...state.fields, title: event.data.title, slug: event.data.slug } }
          : state;
      case 'AssetFolderMoved':
        return state.fields
          ? { ...state, fields: { ...state.fields, parent_id: event.data.parent_id, slug: event.data.slug } }
          : state;
      case 'AssetFolderDeleted':
        return deletedRecord(state);
      case 'AssetFolderWithdrawn':
        return { ...state, id: event.data.id, status: 'withdrawn' };
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'CreateAssetFolder':
        return create(command, state);
      case 'UpdateAssetFolder':
        return update(command, state);
      case 'DeleteAssetFolder':
        return remove(state);
      case 'RemoveAssetFolder':
        return removedFromTree(command, state);
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
