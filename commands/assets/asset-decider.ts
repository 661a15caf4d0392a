import { fieldsOf, presentFields } from '../../infra/schema/record-fields.js';
import type { Decider, DomainCommand } from '../decider.js';
import { changedKeys, mustExist, mustNotExist, newRecord, patched, type RecordState } from '../decider-rules.js';
import type { AssetEvent } from '../../contracts/assets/events.js';
import { AssetDetails, AssetFields, type AssetFile } from '../../contracts/assets/fields.js';
import { invalid, MAX_ALT_LENGTH, MAX_CONTEXT_TYPE_LENGTH, requireTitle } from './rules.js';

export type UploadAsset = DomainCommand<
  'UploadAsset',
  { id: number; file: AssetFile; title: string; folder_id: number | null }
>;
export type ReplaceAssetFile = DomainCommand<'ReplaceAssetFile', { file: AssetFile }>;
/** Only the keys present change. */
export type ChangeAssetDetails = DomainCommand<'ChangeAssetDetails', Partial<AssetDetails>>;
/** null: take the asset out of every folder. */
export type MoveAssetToFolder = DomainCommand<'MoveAssetToFolder', { folder_id: number | null }>;
export type RecordAssetUsage = DomainCommand<
  'RecordAssetUsage',
  { usage_id: number; context_type: string; context_id: number | null }
>;
export type DeleteAsset = DomainCommand<'DeleteAsset', Record<string, never>>;
export type AssetCommand =
  UploadAsset | ReplaceAssetFile | ChangeAssetDetails | MoveAssetToFolder | RecordAssetUsage | DeleteAsset;

export type AssetState = RecordState<AssetFields> & { usage_count: number };

const LABEL = 'Asset';

function extensionLabel(extension: string): string {
  return extension ? `".${extension}"` : 'no extension';
}

/** The request's folder becomes the asset's folders; the title is trimmed. */
function upload({ data }: UploadAsset, state: AssetState): AssetEvent[] {
  const { id, file, title, folder_id } = data;
  mustNotExist(state, LABEL, id);
  const fields = fieldsOf(AssetFields, {
    file,
    title: title.trim(),
    folder_ids: folder_id === null ? [] : [folder_id],
  });
  requireTitle(fields.title, 'o:name');
  return [{ type: 'AssetUploaded', data: { id, ...fields } }];
}

function replaceFile({ data }: ReplaceAssetFile, state: AssetState): AssetEvent[] {
  const current = mustExist(state, LABEL).file;
  const { file } = data;
  if (file.extension !== current.extension) {
    throw invalid(
      'file',
      `The new file must keep the original extension ${extensionLabel(current.extension)}; it has ${extensionLabel(file.extension)}.`,
    );
  }
  return [{ type: 'AssetFileReplaced', data: { id: state.id, file, previous_stored_name: current.stored_name } }];
}

/** The details given, checked; the field names of refusals are the bulk route's. */
function checkedDetails(given: Partial<AssetDetails>): Partial<AssetDetails> {
  const details = presentFields(AssetDetails, given);
  if (details.title !== undefined) details.title = requireTitle(details.title, 'name');
  if (details.alt !== undefined && details.alt.length > MAX_ALT_LENGTH)
    throw invalid('alt_text', `alt_text must be at most ${MAX_ALT_LENGTH} characters.`);
  return details;
}

/** Only what changes is recorded. */
function changeDetails({ data: given }: ChangeAssetDetails, state: AssetState): AssetEvent[] {
  const current = mustExist(state, LABEL);
  const details = checkedDetails(given);
  if (changedKeys(current, patched(current, details)).length === 0) return [];
  return [{ type: 'AssetDetailsChanged', data: { id: state.id, ...details } }];
}

function moveToFolder({ data }: MoveAssetToFolder, state: AssetState): AssetEvent[] {
  const { folder_ids } = mustExist(state, LABEL);
  const { folder_id } = data;
  if (folder_id === null) {
    return folder_ids.length ? [{ type: 'AssetRemovedFromFolders', data: { id: state.id, folder_ids } }] : [];
  }
  if (folder_ids.length === 1 && folder_ids[0] === folder_id) return [];
  return [{ type: 'AssetMovedToFolder', data: { id: state.id, folder_id } }];
}

function recordUsage({ data }: RecordAssetUsage, state: AssetState): AssetEvent[] {
  mustExist(state, LABEL);
  const contextType = data.context_type.trim();
  if (!contextType) throw invalid('context_type', 'context_type must not be empty.');
  if (contextType.length > MAX_CONTEXT_TYPE_LENGTH) {
    throw invalid('context_type', `context_type must be at most ${MAX_CONTEXT_TYPE_LENGTH} characters.`);
  }
  return [
    {
      type: 'AssetUsageRecorded',
      data: { id: state.id, usage_id: data.usage_id, context_type: contextType, context_id: data.context_id },
    },
  ];
}

/** Folder assignments and usage go first, then the asset; the deleted event names the stored file, which the handler then removes. */
function remove(state: AssetState): AssetEvent[] {
  const { folder_ids, file } = mustExist(state, LABEL);
  const events: AssetEvent[] = [];
  if (folder_ids.length) events.push({ type: 'AssetRemovedFromFolders', data: { id: state.id, folder_ids } });
  if (state.usage_count > 0) events.push({ type: 'AssetUsageCleared', data: { id: state.id } });
  events.push({ type: 'AssetDeleted', data: { id: state.id, stored_name: file.stored_name } });
  return events;
}

export const assetDecider: Decider<AssetState, AssetCommand, AssetEvent> = {
  initialState: () => ({ ...newRecord<AssetFields>(), usage_count: 0 }),

  evolve(state, event) {
    switch (event.type) {
      case 'AssetUploaded': {
        const { id, ...fields } = event.data;
        return { status: 'live', id, fields, usage_count: state.usage_count };
      }
      case 'AssetDeleted':
        return { status: 'deleted', id: state.id, fields: state.fields, usage_count: state.usage_count };
      case 'AssetFileReplaced':
        return state.fields ? { ...state, fields: { ...state.fields, file: event.data.file } } : state;
      case 'AssetDetailsChanged': {
        const { id: _id, ...details } = event.data;
        return state.fields ? { ...state, fields: patched(state.fields, details) } : state;
      }
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
      case 'UploadAsset':
        return upload(command, state);
      case 'ReplaceAssetFile':
        return replaceFile(command, state);
      case 'ChangeAssetDetails':
        return changeDetails(command, state);
      case 'MoveAssetToFolder':
        return moveToFolder(command, state);
      case 'RecordAssetUsage':
        return recordUsage(command, state);
      case 'DeleteAsset':
        return remove(state);
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
