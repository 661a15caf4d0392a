import t from 'tap';
import { assetFolderDecider } from '../../../commands/assets/folder-decider.js';
import { foldEvents } from '../../../commands/decider.js';
import type { AssetFolderEvent } from '../../../contracts/assets/events.js';
import { ConflictError, NotFoundError, ValidationError } from '../../../infra/errors.js';
import { deciderSpec } from '../../decider-spec.js';

const folders = deciderSpec(assetFolderDecider);
const created: AssetFolderEvent = {
  type: 'AssetFolderCreated',
  data: { id: 2, title: 'Maps', slug: 'maps', parent_id: 1 },
};

t.test('create records title, slug and parent; only once', async (t) => {
  folders
    .given([])
    .when({ type: 'CreateAssetFolder', data: { id: 2, title: ' Maps ', slug: 'maps', parent_id: 1 } })
    .then(t, [created]);
  folders
    .given([created])
    .when({ type: 'CreateAssetFolder', data: { id: 2, title: 'Maps', slug: 'maps', parent_id: 1 } })
    .thenThrows(t, ConflictError);
  folders
    .given([])
    .when({ type: 'CreateAssetFolder', data: { id: 2, title: '  ', slug: 'x', parent_id: null } })
    .thenThrows(t, ValidationError);
  folders
    .given([])
    .when({ type: 'CreateAssetFolder', data: { id: 2, title: 'x'.repeat(256), slug: 'x', parent_id: null } })
    .thenThrows(t, ValidationError);
  folders
    .given([])
    .when({ type: 'CreateAssetFolder', data: { id: 2, title: 'Self', slug: 'self', parent_id: 2 } })
    .thenThrows(t, ValidationError);
  t.same(
    foldEvents(assetFolderDecider, [created]),
    { status: 'live', id: 2, fields: { title: 'Maps', slug: 'maps', parent_id: 1 } },
    'the state holds the fields without the id',
  );
  t.throws(
    () =>
      assetFolderDecider.decide(
        { type: 'CreateAssetFolder', data: { id: 2, title: 'Maps', slug: 'maps', parent_id: 1 } },
        foldEvents(assetFolderDecider, [created]),
      ),
    {
      message: 'Folder 2 already exists.',
    },
  );
});

t.test('update: a rename, a move, both, or nothing', async (t) => {
  folders
    .given([created])
    .when({ type: 'UpdateAssetFolder', data: { title: 'Old maps', slug: 'old-maps', parent_id: 1 } })
    .then(t, [{ type: 'AssetFolderRenamed', data: { id: 2, title: 'Old maps', slug: 'old-maps' } }]);
  folders
    .given([created])
    .when({ type: 'UpdateAssetFolder', data: { title: 'Maps', slug: 'maps-2', parent_id: null } })
    .then(t, [{ type: 'AssetFolderMoved', data: { id: 2, parent_id: null, slug: 'maps-2' } }]);
  folders
    .given([created])
    .when({ type: 'UpdateAssetFolder', data: { title: 'Charts', slug: 'charts', parent_id: 5 } })
    .then(t, [
      { type: 'AssetFolderRenamed', data: { id: 2, title: 'Charts', slug: 'charts' } },
      { type: 'AssetFolderMoved', data: { id: 2, parent_id: 5, slug: 'charts' } },
    ]);
  folders
    .given([created])
    .when({ type: 'UpdateAssetFolder', data: { title: 'Maps', slug: 'maps', parent_id: 1 } })
    .then(t, []);
  folders
    .given([created])
    .when({ type: 'UpdateAssetFolder', data: { title: 'Maps', slug: 'maps', parent_id: 2 } })
    .thenThrows(t, ValidationError);
  folders
    .given([])
    .when({ type: 'UpdateAssetFolder', data: { title: 'Maps', slug: 'maps', parent_id: null } })
    .thenThrows(t, NotFoundError);
});

t.test('delete once', async (t) => {
  const deleted: AssetFolderEvent = { type: 'AssetFolderDeleted', data: { id: 2 } };
  folders.given([created]).when({ type: 'DeleteAssetFolder', data: {} }).then(t, [deleted]);
  folders.given([created, deleted]).when({ type: 'DeleteAssetFolder', data: {} }).thenThrows(t, NotFoundError);
  folders
    .given([created, deleted])
    .when({ type: 'UpdateAssetFolder', data: { title: 'X', slug: 'x', parent_id: null } })
    .thenThrows(t, NotFoundError);
});

t.test('a folder the tree removed is deleted, or withdrawn when its create has not been written', async (t) => {
  const remove = { type: 'RemoveAssetFolder' as const, data: { id: 2 } };
  folders
    .given([created])
    .when(remove)
    .then(t, [{ type: 'AssetFolderDeleted', data: { id: 2 } }]);
  folders
    .given([])
    .when(remove)
    .then(t, [{ type: 'AssetFolderWithdrawn', data: { id: 2 } }]);
  folders
    .given([created, { type: 'AssetFolderDeleted', data: { id: 2 } }])
    .when(remove)
    .then(t, []);
  const withdrawn: AssetFolderEvent = { type: 'AssetFolderWithdrawn', data: { id: 2 } };
  folders
    .given([withdrawn])
    .when({ type: 'CreateAssetFolder', data: { id: 2, title: 'Maps', slug: 'maps', parent_id: 1 } })
    .thenThrows(t, ValidationError);
});
