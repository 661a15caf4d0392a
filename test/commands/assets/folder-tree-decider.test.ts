import t from 'tap';
import {
  folderTreeDecider,
  type FolderTreeEvent,
  type KnownFolder,
} from '../../../commands/assets/folder-tree-decider.js';
import { NotFoundError, ValidationError } from '../../../infra/errors.js';
import { deciderSpec } from '../../decider-spec.js';

const tree = deciderSpec(folderTreeDecider);
const placed = (id: number, parent_id: number | null, slug: string): FolderTreeEvent => ({
  type: 'AssetFolderPlaced',
  data: { id, parent_id, slug },
});
const place = (
  id: number,
  parent_id: number | null,
  base: string,
  known: KnownFolder[] = [],
  create = true,
  settledThrough = 0,
) => ({
  type: 'PlaceFolder' as const,
  data: { id, parent_id, base, create, known, settledThrough },
});

t.test('a folder gets the first slug free among its siblings, in the stream or the read models', async (t) => {
  tree
    .given([])
    .when(place(1, null, 'maps'))
    .then(t, [placed(1, null, 'maps')]);
  tree
    .given([placed(1, null, 'maps')])
    .when(place(2, null, 'maps'))
    .then(t, [placed(2, null, 'maps-2')], 'a sibling placed in the stream');
  tree
    .given([])
    .when(place(2, null, 'maps', [{ id: 1, parent_id: null, slug: 'maps' }]))
    .then(t, [placed(2, null, 'maps-2')], 'a sibling older than the stream');
  tree
    .given([placed(1, null, 'maps'), placed(3, null, 'box')])
    .when(place(2, 3, 'maps'))
    .then(t, [placed(2, 3, 'maps')], 'another parent is another scope');
  const removed: FolderTreeEvent = { type: 'AssetFoldersRemoved', data: { ids: [1] } };
  tree
    .given([placed(1, null, 'maps'), removed])
    .when(place(2, null, 'maps'))
    .then(t, [placed(2, null, 'maps')], 'a removed folder frees its slug');
  tree
    .given([placed(1, null, 'maps'), removed, placed(1, null, 'maps')])
    .when(place(2, null, 'maps'))
    .then(t, [placed(2, null, 'maps')], 'for good');
  tree
    .given([placed(1, null, 'maps'), removed])
    .when(place(1, null, 'maps', [], false))
    .thenThrows(t, NotFoundError, 'a removed folder cannot be placed');
});

t.test('no cycle, in the stream or in the read models', async (t) => {
  const ab = [placed(1, null, 'a'), placed(2, null, 'b'), placed(1, 2, 'a')];
  tree
    .given(ab)
    .when(place(2, 1, 'b', [], false))
    .thenThrows(t, ValidationError, 'b cannot go under a, which the stream put under b');
  tree
    .given([placed(2, null, 'b')])
    .when(
      place(
        2,
        1,
        'b',
        [
          { id: 1, parent_id: 2, slug: 'a' },
          { id: 2, parent_id: null, slug: 'b' },
        ],
        false,
      ),
    )
    .thenThrows(t, ValidationError, 'nor under a folder the read models put under it');
  tree
    .given(ab)
    .when(place(1, 1, 'a', [], false))
    .thenThrows(t, ValidationError, 'nor under itself');
  tree
    .given([placed(1, null, 'a')])
    .when(place(3, 9, 'c'))
    .thenThrows(t, ValidationError, 'a missing parent is refused');
  tree
    .given([])
    .when(place(3, 1, 'c', [], false))
    .thenThrows(t, NotFoundError, 'a folder moved must exist');
});

t.test('a placement older than the settled version yields to the read models', async (t) => {
  const known = [
    { id: 1, parent_id: null, slug: 'a' },
    { id: 2, parent_id: null, slug: 'b' },
  ];
  // The stream put 1 under 2 and the folder write never came: settled, the read models say 1 is top-level.
  tree
    .given([placed(1, 2, 'a')])
    .when(place(2, 1, 'b', known, false, 1))
    .then(t, [placed(2, 1, 'b')]);
  tree
    .given([placed(1, 2, 'a')])
    .when(place(2, 1, 'b', known, false, 0))
    .thenThrows(t, ValidationError, 'unsettled, it counts');
  tree
    .given([placed(5, null, 'ghost')])
    .when(place(6, null, 'ghost', [], true, 1))
    .then(t, [placed(6, null, 'ghost')], 'a settled create never written frees its slug');
});

t.test('a folder is removed with every folder below it, deepest first', async (t) => {
  const given = [placed(1, null, 'a'), placed(2, 1, 'b'), placed(3, 2, 'c')];
  tree
    .given(given)
    .when({ type: 'RemoveFolder', data: { id: 1, known: [], settledThrough: 0 } })
    .then(t, [{ type: 'AssetFoldersRemoved', data: { ids: [3, 2, 1] } }]);
  tree
    .given([])
    .when({ type: 'RemoveFolder', data: { id: 1, known: [], settledThrough: 0 } })
    .thenThrows(t, NotFoundError);
});
