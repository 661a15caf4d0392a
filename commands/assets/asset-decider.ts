import { ConflictError, NotFoundError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { AssetEvent, AssetFile } from './events.js';
import { invalid, MAX_ALT_LENGTH, MAX_CONTEXT_TYPE_LENGTH, requireTitle } from './rules.js';

export type UploadAsset = DomainCommand<'UploadAsset', { id: number; file: AssetFile; title: string; folder_id: number | null }>;
export type ReplaceAssetFile = DomainCommand<'ReplaceAssetFile', { file: AssetFile }>;
export type ChangeAssetDetails = DomainCommand<'ChangeAssetDetails', { title?: string; alt?: string }>;
/** null: take the asset out of every folder. */
export type MoveAssetToFolder = DomainCommand<'MoveAssetToFolder', { folder_id: number | null }>;
export type RecordAssetUsage = DomainCommand<'RecordAssetUsage', { usage_id: number; context_type: string; context_id: number | null }>;
export type DeleteAsset = DomainCommand<'DeleteAsset', Record<string, never>>;
export type AssetCommand = UploadAsset | ReplaceAssetFile | ChangeAssetDetails | MoveAssetToFolder | RecordAssetUsage | DeleteAsset;

export interface AssetState {
  status: 'new' | 'live' | 'deleted';
  id: number;
  file: AssetFile | null;
  title: string;
  alt: string;
  folder_ids: number[];
  usage_count: number;
}

function extensionLabel(extension: string): string {
  return extension ? `".${extension}"` : 'no extension';
}

function requireLive(state: AssetState): AssetFile {
  if (state.status !== 'live' || !state.file) throw new NotFoundError('Asset not found.');
  return state.file;
}

export const assetDecider: Decider<AssetState, AssetCommand, AssetEvent> = {
  initialState: () => ({ status: 'new', id: 0, file: null, title: '', alt: '', folder_ids: [], usage_count: 0 }),

  evolve(state, event) {
    switch (event.type) {
      case 'AssetUploaded':
        return { ...state, status: 'live', id: event.data.id, file: event.data.file, title: event.data.title, alt: event.data.alt, folder_ids: event.data.folder_ids };
      case 'AssetFileReplaced':
        return { ...state, file: event.data.file };
      case 'AssetDetailsChanged':
        return { ...state, title: event.data.title ?? state.title, alt: event.data.alt ?? state.alt };
      case 'AssetMovedToFolder':
        return { ...state, folder_ids: [event.data.folder_id] };
      case 'AssetRemovedFromFolders':
        return { ...state, folder_ids: [] };
      case 'AssetUsageRecorded':
        return { ...state, usage_count: state.usage_count + 1 };
      case 'AssetUsageCleared':
        return { ...state, usage_count: 0 };
      case 'AssetDeleted':
        return { ...state, status: 'deleted' };
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'UploadAsset': {
        if (state.status !== 'new') throw new ConflictError(`Asset ${command.data.id} already exists.`);
        const { id, file, folder_id } = command.data;
        const title = requireTitle(command.data.title, 'o:name');
        return [{ type: 'AssetUploaded', data: { id, file, title, alt: '', folder_ids: folder_id === null ? [] : [folder_id] } }];
      }
      case 'ReplaceAssetFile': {
        const current = requireLive(state);
        const { file } = command.data;
        if (file.extension !== current.extension) {
          throw invalid(
            'file',
            `The new file must keep the original extension ${extensionLabel(current.extension)}; it has ${extensionLabel(file.extension)}.`,
          );
        }
        return [{ type: 'AssetFileReplaced', data: { id: state.id, file, previous_stored_name: current.stored_name } }];
      }
      case 'ChangeAssetDetails': {
        requireLive(state);
        const data: { id: number; title?: string; alt?: string } = { id: state.id };
        if (command.data.title !== undefined) data.title = requireTitle(command.data.title, 'name');
        if (command.data.alt !== undefined) {
          if (command.data.alt.length > MAX_ALT_LENGTH) throw invalid('alt_text', `alt_text must be at most ${MAX_ALT_LENGTH} characters.`);
          data.alt = command.data.alt;
        }
        if ((data.title ?? state.title) === state.title && (data.alt ?? state.alt) === state.alt) return [];
        return [{ type: 'AssetDetailsChanged', data }];
      }
      case 'MoveAssetToFolder': {
        requireLive(state);
        const { folder_id } = command.data;
        if (folder_id === null) {
          return state.folder_ids.length ? [{ type: 'AssetRemovedFromFolders', data: { id: state.id, folder_ids: state.folder_ids } }] : [];
        }
        if (state.folder_ids.length === 1 && state.folder_ids[0] === folder_id) return [];
        return [{ type: 'AssetMovedToFolder', data: { id: state.id, folder_id } }];
      }
      case 'RecordAssetUsage': {
        requireLive(state);
        const contextType = command.data.context_type.trim();
        if (!contextType) throw invalid('context_type', 'context_type must not be empty.');
        if (contextType.length > MAX_CONTEXT_TYPE_LENGTH) {
          throw invalid('context_type', `context_type must be at most ${MAX_CONTEXT_TYPE_LENGTH} characters.`);
        }
        return [{ type: 'AssetUsageRecorded', data: { id: state.id, usage_id: command.data.usage_id, context_type: contextType, context_id: command.data.context_id } }];
      }
      case 'DeleteAsset': {
        const file = requireLive(state);
        const events: AssetEvent[] = [];
        if (state.folder_ids.length) events.push({ type: 'AssetRemovedFromFolders', data: { id: state.id, folder_ids: state.folder_ids } });
        if (state.usage_count > 0) events.push({ type: 'AssetUsageCleared', data: { id: state.id } });
        events.push({ type: 'AssetDeleted', data: { id: state.id, stored_name: file.stored_name } });
        return events;
      }
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
