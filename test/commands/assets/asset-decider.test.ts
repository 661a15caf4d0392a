import t from 'tap';
import { assetDecider } from '../../../commands/assets/asset-decider.js';
import type { AssetEvent, AssetFile } from '../../../contracts/assets/events.js';
import { ConflictError, NotFoundError, ValidationError } from '../../../infra/errors.js';
import { deciderSpec } from '../../decider-spec.js';

const assets = deciderSpec(assetDecider);
const file: AssetFile = {
  stored_name: 'a.png',
  filename: 'map.png',
  extension: 'png',
  mime_type: 'image/png',
  size: 70,
  sha256: 'aa',
};
const newFile: AssetFile = { ...file, stored_name: 'b.png', filename: 'map2.png', sha256: 'bb' };
const uploaded: AssetEvent = { type: 'AssetUploaded', data: { id: 7, file, title: 'Map', alt: '', folder_ids: [3] } };
const deleted: AssetEvent = { type: 'AssetDeleted', data: { id: 7, stored_name: 'a.png' } };

t.test('upload records the stored file, title and folder', async (t) => {
  assets
    .given([])
    .when({ type: 'UploadAsset', data: { id: 7, file, title: ' Map ', folder_id: 3 } })
    .then(t, [uploaded]);
  assets
    .given([])
    .when({ type: 'UploadAsset', data: { id: 7, file, title: 'Map', folder_id: null } })
    .then(t, [{ type: 'AssetUploaded', data: { id: 7, file, title: 'Map', alt: '', folder_ids: [] } }]);
  assets
    .given([uploaded])
    .when({ type: 'UploadAsset', data: { id: 7, file, title: 'Map', folder_id: null } })
    .thenThrows(t, ConflictError);
  assets
    .given([])
    .when({ type: 'UploadAsset', data: { id: 7, file, title: '', folder_id: null } })
    .thenThrows(t, ValidationError);
});

t.test('replace keeps the extension', async (t) => {
  assets
    .given([uploaded])
    .when({ type: 'ReplaceAssetFile', data: { file: newFile } })
    .then(t, [{ type: 'AssetFileReplaced', data: { id: 7, file: newFile, previous_stored_name: 'a.png' } }]);
  const replaced: AssetEvent = {
    type: 'AssetFileReplaced',
    data: { id: 7, file: newFile, previous_stored_name: 'a.png' },
  };
  assets
    .given([uploaded, replaced])
    .when({ type: 'ReplaceAssetFile', data: { file: { ...file, stored_name: 'c.png' } } })
    .then(
      t,
      [
        {
          type: 'AssetFileReplaced',
          data: { id: 7, file: { ...file, stored_name: 'c.png' }, previous_stored_name: 'b.png' },
        },
      ],
      'the previous file is the latest one',
    );
  assets
    .given([uploaded])
    .when({ type: 'ReplaceAssetFile', data: { file: { ...newFile, extension: 'gif' } } })
    .thenThrows(t, ValidationError);
  t.throws(
    () =>
      assetDecider.decide(
        { type: 'ReplaceAssetFile', data: { file: { ...newFile, extension: 'gif' } } },
        assetDecider.evolve(assetDecider.initialState(), uploaded),
      ),
    { message: 'The new file must keep the original extension ".png"; it has ".gif".', statusCode: 400 },
  );
  assets
    .given([uploaded, deleted])
    .when({ type: 'ReplaceAssetFile', data: { file: newFile } })
    .thenThrows(t, NotFoundError);
});

t.test('details: only what changes is recorded', async (t) => {
  assets
    .given([uploaded])
    .when({ type: 'ChangeAssetDetails', data: { alt: 'A map' } })
    .then(t, [{ type: 'AssetDetailsChanged', data: { id: 7, alt: 'A map' } }]);
  assets
    .given([uploaded])
    .when({ type: 'ChangeAssetDetails', data: { title: 'Map', alt: '' } })
    .then(t, []);
  assets
    .given([uploaded])
    .when({ type: 'ChangeAssetDetails', data: { title: ' ' } })
    .thenThrows(t, ValidationError);
  assets
    .given([uploaded])
    .when({ type: 'ChangeAssetDetails', data: { alt: 'x'.repeat(1001) } })
    .thenThrows(t, ValidationError);
});

t.test('folders: move into one, or out of all', async (t) => {
  assets
    .given([uploaded])
    .when({ type: 'MoveAssetToFolder', data: { folder_id: 4 } })
    .then(t, [{ type: 'AssetMovedToFolder', data: { id: 7, folder_id: 4 } }]);
  assets
    .given([uploaded])
    .when({ type: 'MoveAssetToFolder', data: { folder_id: 3 } })
    .then(t, [], 'already there');
  assets
    .given([uploaded])
    .when({ type: 'MoveAssetToFolder', data: { folder_id: null } })
    .then(t, [{ type: 'AssetRemovedFromFolders', data: { id: 7, folder_ids: [3] } }]);
  const removed: AssetEvent = { type: 'AssetRemovedFromFolders', data: { id: 7, folder_ids: [3] } };
  assets
    .given([uploaded, removed])
    .when({ type: 'MoveAssetToFolder', data: { folder_id: null } })
    .then(t, []);
});

t.test('usage and delete', async (t) => {
  const usage: AssetEvent = {
    type: 'AssetUsageRecorded',
    data: { id: 7, usage_id: 1, context_type: 'page', context_id: null },
  };
  assets
    .given([uploaded])
    .when({ type: 'RecordAssetUsage', data: { usage_id: 1, context_type: ' page ', context_id: null } })
    .then(t, [usage]);
  assets
    .given([uploaded])
    .when({ type: 'RecordAssetUsage', data: { usage_id: 1, context_type: ' ', context_id: null } })
    .thenThrows(t, ValidationError);
  assets
    .given([uploaded, usage])
    .when({ type: 'DeleteAsset', data: {} })
    .then(
      t,
      [
        { type: 'AssetRemovedFromFolders', data: { id: 7, folder_ids: [3] } },
        { type: 'AssetUsageCleared', data: { id: 7 } },
        deleted,
      ],
      'folder assignments and usage go first, then the asset',
    );
  const unfiled: AssetEvent = { type: 'AssetUploaded', data: { id: 7, file, title: 'Map', alt: '', folder_ids: [] } };
  assets.given([unfiled]).when({ type: 'DeleteAsset', data: {} }).then(t, [deleted]);
  assets.given([uploaded, deleted]).when({ type: 'DeleteAsset', data: {} }).thenThrows(t, NotFoundError);
  assets
    .given([uploaded, deleted])
    .when({ type: 'RecordAssetUsage', data: { usage_id: 2, context_type: 'page', context_id: 1 } })
    .thenThrows(t, NotFoundError);
});
