import t from 'tap';
import type { BlogCategoryEvent, BlogSettingsChanged } from '../../contracts/blog/events.js';
import { defineHandlerProjection, type Projected } from '../../projections/projection.js';

// tsc proves these: each @ts-expect-error fails the type check if its line compiles.
const handle = async (_event: Projected<BlogCategoryEvent>) => undefined;

t.test('handles must name every type of the event union, and only those', async (t) => {
  const complete = defineHandlerProjection({
    name: 'complete',
    handles: ['BlogCategoryCreated', 'BlogCategoryUpdated', 'BlogCategoryDeleted'],
    handle,
  });
  const missing = defineHandlerProjection({
    name: 'missing',
    // @ts-expect-error BlogCategoryDeleted is missing from handles
    handles: ['BlogCategoryCreated', 'BlogCategoryUpdated'],
    handle,
  });
  const extra = defineHandlerProjection({
    name: 'extra',
    // @ts-expect-error BlogPostCreated is not an event of the union
    handles: ['BlogSettingsChanged', 'BlogPostCreated'],
    handle: async (_event: Projected<BlogSettingsChanged>) => undefined,
  });
  t.same([complete.handles.length, missing.handles.length, extra.handles.length], [3, 2, 2]);
});
