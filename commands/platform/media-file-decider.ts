import type { Decider, DomainCommand } from '../decider.js';
import type { MediaFields } from '../../contracts/platform/fields.js';
import { mediaDecider } from './kinds.js';
import {
  MEDIA_FILE_EVENTS,
  derivativeNames,
  isImageFile,
  type Derivatives,
  type MediaFile,
  type MediaFileEvent,
} from '../../contracts/platform/media-files.js';
import type { ResourceEvent } from '../../contracts/platform/events.js';
import type { ResourceState } from './resource-decider.js';

/**
 * A media's stream seen with its file: the media's own life cycle (mediaDecider) and the facts
 * about its file. A media is created with its file in one append (MediaCreated, then
 * MediaFileIngested), so no media is ever half written; the derivative worker then records what
 * it made, or that the image could not be decoded. The platform's generic update and delete of
 * a media read the same stream with mediaDecider alone, which passes the file's events by.
 */
export interface MediaFileState {
  media: ResourceState<MediaFields>;
  file: MediaFile | null;
  derivatives: Derivatives | null;
  failed: boolean;
}

export type CreateMediaWithFile = DomainCommand<
  'CreateMediaWithFile',
  { id: number; fields: MediaFields; file: MediaFile }
>;
/** `replace`: derivatives made again on purpose (npm run derivatives); without it, a second recording is nothing. */
export type RecordDerivatives = DomainCommand<
  'RecordDerivatives',
  { sha256: string; derivatives: Derivatives; replace: boolean }
>;
export type RecordDerivativesFailure = DomainCommand<'RecordDerivativesFailure', { sha256: string; reason: string }>;
export type MediaFileCommand = CreateMediaWithFile | RecordDerivatives | RecordDerivativesFailure;

export type MediaStreamEvent = ResourceEvent<MediaFields> | MediaFileEvent;

function isFileEvent(event: MediaStreamEvent): event is MediaFileEvent {
  return (Object.values(MEDIA_FILE_EVENTS) as string[]).includes(event.type);
}

function evolveFile(state: MediaFileState, event: MediaFileEvent): MediaFileState {
  switch (event.type) {
    case 'MediaFileIngested':
      return { ...state, file: event.data.file, derivatives: null, failed: false };
    case 'MediaDerivativesMade':
      return { ...state, derivatives: event.data.derivatives, failed: false };
    case 'MediaDerivativesFailed':
      return { ...state, failed: true };
    default: {
      const _exhaustive: never = event;
      return state;
    }
  }
}

function createWithFile({ data }: CreateMediaWithFile, state: MediaFileState): MediaStreamEvent[] {
  const created = mediaDecider.decide({ type: 'Create', data: { id: data.id, fields: data.fields } }, state.media);
  return [...created, { type: MEDIA_FILE_EVENTS.ingested, data: { id: data.id, file: data.file } }];
}

/** The file the worker worked on is still the media's, the media is live, and its file is an image. */
function stillCurrent(state: MediaFileState, sha256: string): state is MediaFileState & { file: MediaFile } {
  return (
    state.media.status === 'live' && state.file !== null && state.file.sha256 === sha256 && isImageFile(state.file)
  );
}

function recordDerivatives({ data }: RecordDerivatives, state: MediaFileState): MediaStreamEvent[] {
  if (!stillCurrent(state, data.sha256)) return [];
  if (state.derivatives && !data.replace) return [];
  const replaced = derivativeNames(state.derivatives);
  return [
    {
      type: MEDIA_FILE_EVENTS.derivativesMade,
      data: { id: state.media.id, sha256: data.sha256, derivatives: data.derivatives, replaced },
    },
  ];
}

function recordFailure({ data }: RecordDerivativesFailure, state: MediaFileState): MediaStreamEvent[] {
  if (!stillCurrent(state, data.sha256) || state.failed) return [];
  return [
    {
      type: MEDIA_FILE_EVENTS.derivativesFailed,
      data: { id: state.media.id, sha256: data.sha256, reason: data.reason },
    },
  ];
}

export const mediaFileDecider: Decider<MediaFileState, MediaFileCommand, MediaStreamEvent> = {
  initialState: () => ({ media: mediaDecider.initialState(), file: null, derivatives: null, failed: false }),

  evolve(state, event) {
    if (isFileEvent(event)) return evolveFile(state, event);
    return { ...state, media: mediaDecider.evolve(state.media, event) };
  },

  decide(command, state) {
    switch (command.type) {
      case 'CreateMediaWithFile':
        return createWithFile(command, state);
      case 'RecordDerivatives':
        return recordDerivatives(command, state);
      case 'RecordDerivativesFailure':
        return recordFailure(command, state);
      default: {
        const _exhaustive: never = command;
        return [];
      }
    }
  },
};
