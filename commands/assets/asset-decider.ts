import { NotFoundError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import { lifecycleDecider, type LifecycleState } from '../lifecycle-decider.js';
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

/** An asset as its uploaded event carries it beside the id. */
export interface AssetFields {
  file: AssetFile;
  title: string;
  alt: string;
  folder_ids: number[];
}

export type AssetState = LifecycleState<AssetFields> & { usage_count: number };

/**
 * An asset's create (CreateAsset: the upload as the log records it, after UploadAsset has
 * turned the request's folder into the asset's folders) and delete are the generic life cycle's;
 * its deleted event names the stored file, which the handler then removes.
 */
const assetLifecycle = lifecycleDecider<AssetFields>()({
  names: { create: 'CreateAsset', delete: 'DeleteAsset', created: 'AssetUploaded', deleted: 'AssetDeleted' },
  label: 'Asset',
  layout: 'flat',
  complete: (fields) => ({ ...fields, title: fields.title.trim() }),
  check: (fields) => requireTitle(fields.title, 'o:name'),
  deletedData: (fields) => ({ stored_name: fields.file.stored_name }),
});

function extensionLabel(extension: string): string {
  return extension ? `".${extension}"` : 'no extension';
}

function requireLive(state: AssetState): AssetFields {
  if (state.status !== 'live' || !state.fields) throw new NotFoundError('Asset not found.');
  return state.fields;
}

export const assetDecider: Decider<AssetState, AssetCommand, AssetEvent> = {
  initialState: () => ({ ...assetLifecycle.initialState(), usage_count: 0 }),

  evolve(state, event) {
    switch (event.type) {
      case 'AssetUploaded':
      case 'AssetDeleted':
        return Object.assign({}, assetLifecycle.evolve(state, event), { usage_count: state.usage_count });
      case 'AssetFileReplaced':
        return state.fields ? { ...state, fields: { ...state.fields, file: event.data.file } } : state;
      case 'AssetDetailsChanged':
        return state.fields
          ? { ...state, fields: { ...state.fields, title: event.data.title ?? state.fields.title, alt: event.data.alt ?? state.fields.alt } }
          : state;
      case 'AssetMovedToFolder':
        return state.fields ? { ...state, fields: { ...state.fields, folder_ids: [event.data.folder_id] } } : state;
      case 'AssetRemovedFromFolders':
        return state.fields ? { ...state, fields: { ...state.fields, folder_ids: [] } } : state;
      case 'AssetUsageRecorded':
        return { ...state, usage_count: state.usage_count + 1 };
      case 'AssetUsageCleared':
        return { ...state, usage_count: 0 };
      default: {
        const _exhaustive: never = event;
        return state;
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'UploadAsset': {
        const { id, file, title, folder_id } = command.data;
        return assetLifecycle.decide({ type: 'CreateAsset', data: { id, file, title, alt: '', folder_ids: folder_id === null ? [] : [folder_id] } }, state);
      }
      case 'ReplaceAssetFile': {
        const current = requireLive(state).file;
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
        const current = requireLive(state);
        const data: { id: number; title?: string; alt?: string } = { id: state.id };
        if (command.data.title !== undefined) data.title = requireTitle(command.data.title, 'name');
        if (command.data.alt !== undefined) {
          if (command.data.alt.length > MAX_ALT_LENGTH) throw invalid('alt_text', `alt_text must be at most ${MAX_ALT_LENGTH} characters.`);
          data.alt = command.data.alt;
        }
        if ((data.title ?? current.title) === current.title && (data.alt ?? current.alt) === current.alt) return [];
        return [{ type: 'AssetDetailsChanged', data }];
      }
      case 'MoveAssetToFolder': {
        const { folder_ids } = requireLive(state);
        const { folder_id } = command.data;
        if (folder_id === null) {
          return folder_ids.length ? [{ type: 'AssetRemovedFromFolders', data: { id: state.id, folder_ids } }] : [];
        }
        if (folder_ids.length === 1 && folder_ids[0] === folder_id) return [];
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
        const deleted = assetLifecycle.decide(command, state);
        // Refused above unless live: folder assignments and usage go first, then the asset.
        const { folder_ids } = requireLive(state);
        const events: AssetEvent[] = [];
        if (folder_ids.length) events.push({ type: 'AssetRemovedFromFolders', data: { id: state.id, folder_ids } });
        if (state.usage_count > 0) events.push({ type: 'AssetUsageCleared', data: { id: state.id } });
        return [...events, ...deleted];
      }
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
