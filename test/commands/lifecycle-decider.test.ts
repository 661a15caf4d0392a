import t from 'tap';
import { foldEvents } from '../../commands/decider.js';
import { lifecycleDecider, type LifecycleCommandOf, type LifecycleEventOf } from '../../commands/lifecycle-decider.js';
import { ConflictError, NotFoundError, ValidationError } from '../../infra/errors.js';
import { deciderSpec } from '../decider-spec.js';

/** A made-up resource with every option: a shelf in a room, whose deletion empties the room field. */
interface ShelfFields {
  name: string;
  room_id: number | null;
  /** Derived by `complete` from the context: when the shelf was last written. */
  stamped: string;
}

const roomMustExist = () => ValidationError.field('room_id', 'The room must exist.');

const shelves = lifecycleDecider<ShelfFields, { now: string }>()({
  names: {
    create: 'CreateShelf',
    update: 'UpdateShelf',
    delete: 'DeleteShelf',
    parentDeleted: 'RoomDeleted',
    created: 'ShelfCreated',
    updated: 'ShelfUpdated',
    deleted: 'ShelfDeleted',
    withdrawn: 'ShelfWithdrawn',
    detached: 'ShelfDetached',
    parentKey: 'room_id',
  },
  label: 'Shelf',
  check(fields) {
    if (!fields.name.trim()) throw ValidationError.field('name', 'Must not be empty.');
  },
  changedKeys: true,
  complete: (fields, change) => ({ ...fields, stamped: change.context.now }),
  deletedData: (fields) => ({ room_id: fields.room_id }),
  parent: { field: 'room_id', clears: true, refuse: roomMustExist },
});

type ShelfCommand = LifecycleCommandOf<typeof shelves>;
type ShelfEvent = LifecycleEventOf<typeof shelves>;
const spec = deciderSpec(shelves);
const NOW = '2026-06-01 12:00:00';
const oak: ShelfFields = { name: 'Oak', room_id: 3, stamped: NOW };
const created: ShelfEvent = { type: 'ShelfCreated', data: { id: 4, fields: oak } };
const deleted: ShelfEvent = { type: 'ShelfDeleted', data: { id: 4, room_id: 3 } };

t.test('create records the completed fields once, after the check', async (t) => {
  spec.given([]).when({ type: 'CreateShelf', data: { id: 4, fields: { ...oak, stamped: '' }, now: NOW } }).then(t, [created]);
  spec.given([created]).when({ type: 'CreateShelf', data: { id: 4, fields: oak, now: NOW } }).thenThrows(t, ConflictError);
  spec.given([]).when({ type: 'CreateShelf', data: { id: 4, fields: { ...oak, name: ' ' }, now: NOW } }).thenThrows(t, ValidationError);
  t.throws(() => shelves.decide({ type: 'CreateShelf', data: { id: 4, fields: oak, now: NOW } }, foldEvents(shelves, [created])), {
    message: 'Shelf 4 already exists.',
  });
});

t.test('update merges the keys present, completes, checks and names what changed', async (t) => {
  const later = '2026-06-02 08:00:00';
  spec
    .given([created])
    .when({ type: 'UpdateShelf', data: { patch: { name: 'Elm', room_id: undefined }, now: later } })
    .then(t, [{ type: 'ShelfUpdated', data: { id: 4, fields: { ...oak, name: 'Elm', stamped: later }, changed: ['name', 'stamped'] } }]);
  spec.given([created]).when({ type: 'UpdateShelf', data: { patch: { name: '' }, now: later } }).thenThrows(t, ValidationError);
  spec.given([]).when({ type: 'UpdateShelf', data: { patch: { name: 'Elm' }, now: later } }).thenThrows(t, NotFoundError);
  spec.given([created, deleted]).when({ type: 'UpdateShelf', data: { patch: { name: 'Elm' }, now: later } }).thenThrows(t, NotFoundError);
});

t.test('delete once, with what the resource adds to its deleted event', async (t) => {
  spec.given([created]).when({ type: 'DeleteShelf', data: {} }).then(t, [deleted]);
  spec.given([created, deleted]).when({ type: 'DeleteShelf', data: {} }).thenThrows(t, NotFoundError);
  spec.given([]).when({ type: 'DeleteShelf', data: {} }).thenThrows(t, NotFoundError);
  t.throws(() => shelves.decide({ type: 'DeleteShelf', data: {} }, shelves.initialState()), { message: 'Shelf not found.' });
});

t.test("a parent's deletion withdraws, clears, detaches, or does nothing", async (t) => {
  const roomDeleted = (roomId: number): ShelfCommand => ({ type: 'RoomDeleted', data: { id: 4, room_id: roomId, now: NOW } });
  const withdrawn: ShelfEvent = { type: 'ShelfWithdrawn', data: { id: 4, room_id: 3 } };
  spec.given([]).when(roomDeleted(3)).then(t, [withdrawn], 'not written yet: withdrawn');
  spec
    .given([created])
    .when(roomDeleted(3))
    .then(t, [{ type: 'ShelfUpdated', data: { id: 4, fields: { ...oak, room_id: null }, changed: ['room_id'] } }], 'in it: the field is cleared');
  spec.given([created]).when(roomDeleted(5)).then(t, [{ type: 'ShelfDetached', data: { id: 4, room_id: 5 } }], 'elsewhere: detached');
  spec.given([created, deleted]).when(roomDeleted(3)).then(t, [], 'deleted: nothing');
  spec.given([withdrawn]).when(roomDeleted(3)).then(t, [], 'withdrawn: nothing');
  spec.given([withdrawn]).when({ type: 'CreateShelf', data: { id: 4, fields: oak, now: NOW } }).thenThrows(t, ValidationError, "a withdrawn create gets the parent's refusal");
  t.equal(foldEvents(shelves, [withdrawn]).status, 'withdrawn');
});

t.test('without `clears`, a record in the deleted parent is deleted', async (t) => {
  const cards = lifecycleDecider<{ box_id: number }>()({
    names: { create: 'Create', delete: 'Delete', parentDeleted: 'ParentDeleted', created: 'CardCreated', deleted: 'CardDeleted' },
    label: 'Card',
    check: () => undefined,
    parent: { field: 'box_id', refuse: () => ValidationError.field('box_id', 'The box must exist.') },
  });
  const card = deciderSpec(cards);
  const filed: LifecycleEventOf<typeof cards> = { type: 'CardCreated', data: { id: 1, fields: { box_id: 2 } } };
  card.given([filed]).when({ type: 'ParentDeleted', data: { id: 1, parent_id: 2 } }).then(t, [{ type: 'CardDeleted', data: { id: 1 } }]);
  card.given([filed]).when({ type: 'ParentDeleted', data: { id: 1, parent_id: 9 } }).then(t, [], 'no detached name: nothing to record');
  card.given([]).when({ type: 'ParentDeleted', data: { id: 1, parent_id: 2 } }).then(t, [], 'no withdrawn name: nothing to record');
  // A name the resource leaves out is no member of its unions: two cases are all its events.
  const kind = (event: LifecycleEventOf<typeof cards>): string => {
    switch (event.type) {
      case 'CardCreated':
        return `in box ${event.data.fields.box_id}`;
      case 'CardDeleted':
        return 'gone';
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  };
  t.equal(kind(filed), 'in box 2');
});

t.test('flat layout: the fields sit beside the id in the create and created event', async (t) => {
  const labels = lifecycleDecider<{ text: string; colour: string }>()({
    names: { create: 'PrintLabel', delete: 'DropLabel', created: 'LabelPrinted', deleted: 'LabelDropped' },
    label: 'Label',
    layout: 'flat',
    check: (fields, id) => {
      if (fields.text === String(id)) throw ValidationError.field('text', 'Not just the id.');
    },
    complete: (fields) => ({ ...fields, text: fields.text.trim() }),
  });
  const label = deciderSpec(labels);
  const printed: LifecycleEventOf<typeof labels> = { type: 'LabelPrinted', data: { id: 2, text: 'Maps', colour: 'red' } };
  label.given([]).when({ type: 'PrintLabel', data: { id: 2, text: ' Maps ', colour: 'red' } }).then(t, [printed]);
  label.given([]).when({ type: 'PrintLabel', data: { id: 2, text: '2', colour: 'red' } }).thenThrows(t, ValidationError, 'the check sees the id');
  t.same(foldEvents(labels, [printed]), { status: 'live', id: 2, fields: { text: 'Maps', colour: 'red' } }, 'the state holds the fields without the id');
  label.given([printed]).when({ type: 'DropLabel', data: {} }).then(t, [{ type: 'LabelDropped', data: { id: 2 } }]);
});

t.test('evolve folds the life cycle events and leaves others to the composing decider; handles names them', async (t) => {
  const state = shelves.evolve(shelves.initialState(), created);
  t.same(state, { status: 'live', id: 4, fields: oak });
  t.same(shelves.evolve(state, deleted), { status: 'deleted', id: 4, fields: oak }, 'a deleted record keeps its last fields (its handler releases their keys)');
  const painted = { type: 'ShelfPainted', data: { id: 4 } } as unknown as ShelfEvent;
  t.equal(shelves.evolve(state, painted), state, 'an event of another kind changes nothing');
  t.ok(shelves.handles('ShelfDetached'));
  t.notOk(shelves.handles('ShelfPainted'));
  t.notOk(shelves.handles('CreateShelf'), 'commands are not events');
});

t.test('the types are the resource names: a switch over them is exhaustive', async (t) => {
  const describe = (command: ShelfCommand): string => {
    switch (command.type) {
      case 'CreateShelf':
        return command.data.fields.name;
      case 'UpdateShelf':
        return command.data.now;
      case 'DeleteShelf':
        return 'delete';
      case 'RoomDeleted':
        return String(command.data.room_id);
      default: {
        const _exhaustive: never = command;
        return _exhaustive;
      }
    }
  };
  t.equal(describe({ type: 'RoomDeleted', data: { id: 4, room_id: 3, now: NOW } }), '3');
  // @ts-expect-error a name the shelf does not use is no command of it
  const unknown: ShelfCommand = { type: 'Create', data: { id: 4, fields: oak, now: NOW } };
  // @ts-expect-error the flat-less shelf's created event nests its fields
  const flat: ShelfEvent = { type: 'ShelfCreated', data: { id: 4, ...oak } };
  lifecycleDecider<ShelfFields>()({
    names: { create: 'C', delete: 'D', created: 'Ced', deleted: 'Ded' },
    label: 'Shelf',
    check: () => undefined,
    // @ts-expect-error a parent's deletion clears only a field that may hold null
    parent: { field: 'name', clears: true, refuse: roomMustExist },
  });
  t.ok(unknown && flat);
});
