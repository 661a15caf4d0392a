import t from 'tap';
import { mediaFileDecider, type MediaStreamEvent } from '../../../commands/platform/media-file-decider.js';
import type { MediaFields } from '../../../contracts/platform/fields.js';
import type { Derivatives, MediaFile } from '../../../contracts/platform/media-files.js';
import { ConflictError, ValidationError } from '../../../infra/errors.js';
import { deciderSpec } from '../../decider-spec.js';

const fields: MediaFields = { item_id: 100, title: 'Scan', text: '', is_public: true };
const file: MediaFile = {
  stored_name: '00000000-0000-4000-8000-000000000001.jpg',
  source: 'scan.jpg',
  extension: 'jpg',
  media_type: 'image/jpeg',
  size: 1234,
  sha256: 'a'.repeat(64),
  pixels: { width: 3000, height: 2000 },
};
const made = (n: number): Derivatives => ({
  large: { stored_name: `large-${n}.jpg`, width: 800, height: 533 },
  medium: { stored_name: `medium-${n}.jpg`, width: 200, height: 133 },
  square: { stored_name: `square-${n}.jpg`, width: 200, height: 200 },
  pyramid: { stored_name: `pyramid-${n}.tif`, levels: [{ width: 3000, height: 2000, page: 0 }] },
});
const created: MediaStreamEvent = { type: 'MediaCreated', data: { id: 7, fields } };
const ingested: MediaStreamEvent = { type: 'MediaFileIngested', data: { id: 7, file } };
const firstMade: MediaStreamEvent = {
  type: 'MediaDerivativesMade',
  data: { id: 7, sha256: file.sha256, derivatives: made(1), replaced: [] },
};
const media = deciderSpec(mediaFileDecider);

t.test('a media is created with its file in one decision', async (t) => {
  media
    .given([])
    .when({ type: 'CreateMediaWithFile', data: { id: 7, fields, file } })
    .then(t, [created, ingested]);
  media
    .given([created, ingested])
    .when({ type: 'CreateMediaWithFile', data: { id: 7, fields, file } })
    .thenThrows(t, ConflictError);
  media
    .given([])
    .when({ type: 'CreateMediaWithFile', data: { id: 7, fields: { ...fields, title: ' ' }, file } })
    .thenThrows(t, ValidationError);
});

t.test('derivatives are recorded once for the current file, again only on purpose', async (t) => {
  media
    .given([created, ingested])
    .when({ type: 'RecordDerivatives', data: { sha256: file.sha256, derivatives: made(1), replace: false } })
    .then(t, [firstMade]);
  media
    .given([created, ingested, firstMade])
    .when({ type: 'RecordDerivatives', data: { sha256: file.sha256, derivatives: made(2), replace: false } })
    .then(t, [], 'a second job for the same file records nothing');
  media
    .given([created, ingested, firstMade])
    .when({ type: 'RecordDerivatives', data: { sha256: file.sha256, derivatives: made(2), replace: true } })
    .then(t, [
      {
        type: 'MediaDerivativesMade',
        data: {
          id: 7,
          sha256: file.sha256,
          derivatives: made(2),
          replaced: ['large-1.jpg', 'medium-1.jpg', 'square-1.jpg', 'pyramid-1.tif'],
        },
      },
    ]);
  media
    .given([created, ingested])
    .when({ type: 'RecordDerivatives', data: { sha256: 'b'.repeat(64), derivatives: made(1), replace: false } })
    .then(t, [], 'derivatives of another file are not recorded');
  media
    .given([created, ingested, { type: 'MediaDeleted', data: { id: 7 } }])
    .when({ type: 'RecordDerivatives', data: { sha256: file.sha256, derivatives: made(1), replace: false } })
    .then(t, [], 'nor those of a deleted media');
  media
    .given([
      created,
      { type: 'MediaFileIngested', data: { id: 7, file: { ...file, media_type: 'text/plain', pixels: null } } },
    ])
    .when({ type: 'RecordDerivatives', data: { sha256: file.sha256, derivatives: made(1), replace: false } })
    .then(t, [], 'nor those of a file that is not an image');
});

t.test('an image that cannot be decoded is recorded once', async (t) => {
  const failed: MediaStreamEvent = {
    type: 'MediaDerivativesFailed',
    data: { id: 7, sha256: file.sha256, reason: 'corrupt' },
  };
  media
    .given([created, ingested])
    .when({ type: 'RecordDerivativesFailure', data: { sha256: file.sha256, reason: 'corrupt' } })
    .then(t, [failed]);
  media
    .given([created, ingested, failed])
    .when({ type: 'RecordDerivativesFailure', data: { sha256: file.sha256, reason: 'corrupt' } })
    .then(t, [], 'never twice');
});

t.test('the media life cycle reads past the file events', async (t) => {
  const state = [created, ingested, firstMade].reduce(mediaFileDecider.evolve, mediaFileDecider.initialState());
  t.equal(state.media.status, 'live');
  t.same(state.file, file);
  t.same(state.derivatives, made(1));
});
