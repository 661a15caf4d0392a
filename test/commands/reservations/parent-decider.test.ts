import t from 'tap';
import { ParentGoneError, parentDecider } from '../../../commands/reservations/parent-decider.js';
import { deciderSpec } from '../../decider-spec.js';

const spec = deciderSpec(parentDecider(['SiteDeleted']));
const attached = { type: 'SitePageAttached', data: { id: 7, parent_id: 1 } };
const attach = { type: 'AttachChild' as const, data: { attached } };

t.test('a child attaches to a live parent, whatever its last event', async (t) => {
  spec
    .given([{ type: 'SiteCreated', data: { id: 1 } }])
    .when(attach)
    .then(t, [attached]);
  spec
    .given([{ type: 'SitePageAttached', data: { id: 6, parent_id: 1 } }])
    .when(attach)
    .then(t, [attached], 'the last event alone is enough');
});

t.test('a parent that is absent or deleted refuses', async (t) => {
  spec.given([]).when(attach).thenThrows(t, ParentGoneError);
  spec
    .given([
      { type: 'SiteCreated', data: { id: 1 } },
      { type: 'SiteDeleted', data: { id: 1 } },
    ])
    .when(attach)
    .thenThrows(t, ParentGoneError);
});
