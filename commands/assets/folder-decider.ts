import { NotFoundError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import { lifecycleDecider, type LifecycleCommandOf, type LifecycleState } from '../lifecycle-decider.js';
import type { AssetFolderEvent } from './events.js';
import { invalid, requireTitle } from './rules.js';

/** A folder as its created event carries it beside the id. */
export interface AssetFolderFields {
  title: string;
  slug: string;
  parent_id: number | null;
}

/**
 * Slugs and the folder tree are set-wide facts: the handler reads them from the read model,
 * works out the slug and checks the parent, and passes the results in the command. A folder's
 * create and delete are the generic life cycle's; its update is a rename or a move of its own.
 */
const folderLifecycle = lifecycleDecider<AssetFolderFields>()({
  names: { create: 'CreateAssetFolder', delete: 'DeleteAssetFolder', created: 'AssetFolderCreated', deleted: 'AssetFolderDeleted' },
  label: 'Folder',
  layout: 'flat',
  complete: (fields) => ({ ...fields, title: fields.title.trim() }),
  check(fields, id) {
    requireTitle(fields.title, 'title');
    if (fields.parent_id === id) throw invalid('parent_id', 'A folder cannot be its own parent.');
  },
  parent: { refuse: (fields) => invalid('parent_id', `Folder ${fields.parent_id} does not exist.`) },
});

type FolderLifecycleCommand = LifecycleCommandOf<typeof folderLifecycle>;
export type CreateAssetFolder = Extract<FolderLifecycleCommand, { type: 'CreateAssetFolder' }>;
export type DeleteAssetFolder = Extract<FolderLifecycleCommand, { type: 'DeleteAssetFolder' }>;
/** The folder's new title, slug and parent (the handler fills in the unchanged ones). */
export type UpdateAssetFolder = DomainCommand<'UpdateAssetFolder', AssetFolderFields>;
/**
 * A folder the tree stream removed (with its parent): deleted, or never written when its create
 * placed it and is still on its way; the append makes that create conflict and be refused.
 */
export type RemoveAssetFolder = DomainCommand<'RemoveAssetFolder', { id: number }>;
export type AssetFolderCommand = FolderLifecycleCommand | UpdateAssetFolder | RemoveAssetFolder;

/** withdrawn: its parent was deleted before it was created; it never will be. */
export type AssetFolderState = LifecycleState<AssetFolderFields>;

export const assetFolderDecider: Decider<AssetFolderState, AssetFolderCommand, AssetFolderEvent> = {
  initialState: () => folderLifecycle.initialState(),

  evolve(state, event) {
    switch (event.type) {
      case 'AssetFolderRenamed':
        return state.fields ? { ...state, fields: { ...state.fields, title: event.data.title, slug: event.data.slug } } : state;
      case 'AssetFolderMoved':
        return state.fields ? { ...state, fields: { ...state.fields, parent_id: event.data.parent_id, slug: event.data.slug } } : state;
      case 'AssetFolderWithdrawn':
        return { ...state, id: event.data.id, status: 'withdrawn' };
      case 'AssetFolderCreated':
      case 'AssetFolderDeleted':
        return folderLifecycle.evolve(state, event);
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'UpdateAssetFolder': {
        if (state.status !== 'live' || !state.fields) throw new NotFoundError('Folder not found.');
        const title = requireTitle(command.data.title, 'title');
        const { slug, parent_id } = command.data;
        const before = state.fields;
        if (parent_id === state.id) throw invalid('parent_id', 'A folder cannot be moved into itself.');
        const events: AssetFolderEvent[] = [];
        if (title !== before.title || (slug !== before.slug && parent_id === before.parent_id)) {
          events.push({ type: 'AssetFolderRenamed', data: { id: state.id, title, slug } });
        }
        if (parent_id !== before.parent_id) events.push({ type: 'AssetFolderMoved', data: { id: state.id, parent_id, slug } });
        return events;
      }
      case 'RemoveAssetFolder':
        if (state.status === 'new') return [{ type: 'AssetFolderWithdrawn', data: { id: command.data.id } }];
        return state.status === 'live' ? folderLifecycle.decide({ type: 'DeleteAssetFolder', data: {} }, state) : [];
      case 'CreateAssetFolder':
      case 'DeleteAssetFolder':
        return folderLifecycle.decide(command, state);
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
