import t from 'tap';
import {
  changedKeys,
  deletedRecord,
  liveRecord,
  mustExist,
  mustNotExist,
  newRecord,
  patched,
  withdrawnRecord,
} from '../../commands/decider-rules.js';
import { ConflictError, NotFoundError } from '../../infra/errors.js';

/** A made-up record: a shelf in a room. */
interface ShelfFields {
  name: string;
  room_id: number | null;
  tags: string[];
}

const oak: ShelfFields = { name: 'Oak', room_id: 3, tags: ['wood'] };

t.test('mustNotExist: a create of a record the stream has, or had, is a conflict naming it', async (t) => {
  t.doesNotThrow(() => mustNotExist(newRecord<ShelfFields>(), 'Shelf', 4));
  const live = liveRecord(4, oak);
  t.throws(() => mustNotExist(live, 'Shelf', 4), ConflictError);
  t.throws(() => mustNotExist(live, 'Shelf', 4), { message: 'Shelf 4 already exists.' });
  t.throws(
    () => mustNotExist(deletedRecord(live), 'Shelf', 4),
    { message: 'Shelf 4 already exists.' },
    'a deleted one too',
  );
  t.throws(
    () => mustNotExist(withdrawnRecord(newRecord<ShelfFields>(), 4), 'Shelf', 4),
    ConflictError,
    'and a withdrawn one',
  );
});

t.test('mustExist: the live record fields; never created, deleted or withdrawn is not found', async (t) => {
  t.equal(mustExist(liveRecord(4, oak), 'Shelf'), oak);
  t.throws(() => mustExist(newRecord<ShelfFields>(), 'Shelf'), NotFoundError);
  t.throws(() => mustExist(newRecord<ShelfFields>(), 'Shelf'), { message: 'Shelf not found.' });
  t.throws(() => mustExist(deletedRecord(liveRecord(4, oak)), 'Shelf'), NotFoundError);
  t.throws(() => mustExist(withdrawnRecord(newRecord<ShelfFields>(), 4), 'Shelf'), NotFoundError);
});

t.test('patched: only the keys the patch carries change, lists replaced whole', async (t) => {
  t.same(patched(oak, { name: 'Elm', room_id: undefined }), { name: 'Elm', room_id: 3, tags: ['wood'] });
  t.same(patched(oak, { room_id: null, tags: [] }), { name: 'Oak', room_id: null, tags: [] }, 'null is a value');
  t.same(
    Object.keys(patched(oak, { tags: ['x'], name: 'Elm' })),
    ['name', 'room_id', 'tags'],
    'the keys keep their order',
  );
  t.same(oak, { name: 'Oak', room_id: 3, tags: ['wood'] }, 'the record before is left as it was');
});

t.test('changedKeys: the keys whose value differs, lists compared by content', async (t) => {
  t.same(changedKeys(oak, { ...oak, name: 'Elm', tags: ['wood'] }), ['name']);
  t.same(changedKeys(oak, { ...oak, tags: ['wood', 'oak'], room_id: null }), ['room_id', 'tags']);
  t.same(changedKeys(oak, oak), []);
});

t.test('evolve steps: live, deleted with its last fields, withdrawn', async (t) => {
  t.same(newRecord(), { status: 'new', id: 0, fields: null });
  const live = liveRecord(4, oak);
  t.same(live, { status: 'live', id: 4, fields: oak });
  t.same(
    deletedRecord(live),
    { status: 'deleted', id: 4, fields: oak },
    'a deleted record keeps its last fields (its handler releases their keys)',
  );
  t.same(withdrawnRecord(newRecord<ShelfFields>(), 4), { status: 'withdrawn', id: 4, fields: null });
});
