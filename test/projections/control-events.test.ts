import t from 'tap';
import { controlRequest, PROJECTIONS_CONTROL_STREAM } from '../../projections/control-events.js';
import type { StoredEvent } from '../../infra/event-store/port.js';

const metadata = { userId: null, at: '2026-01-01T00:00:00.000Z' };
const stored = (type: string, data: unknown, streamId = PROJECTIONS_CONTROL_STREAM): StoredEvent => ({
  streamId,
  streamVersion: 1,
  position: 1,
  type,
  data,
  metadata,
});

t.test('a retry or a skip of the control stream is read with the data it needs', async (t) => {
  t.same(controlRequest(stored('ProjectionRetryRequested', { projection: 'blog-posts' })), {
    type: 'ProjectionRetryRequested',
    data: { projection: 'blog-posts' },
  });
  t.same(controlRequest(stored('ProjectionSkipRequested', { projection: 'blog-posts', position: 7, extra: true })), {
    type: 'ProjectionSkipRequested',
    data: { projection: 'blog-posts', position: 7 },
  });
});

t.test('anything malformed, or from another stream, is no request (never thrown on)', async (t) => {
  const malformed: [string, unknown][] = [
    ['ProjectionRetryRequested', null],
    ['ProjectionRetryRequested', { projection: 3 }],
    ['ProjectionSkipRequested', { projection: 'blog-posts' }],
    ['ProjectionSkipRequested', { projection: 'blog-posts', position: 0 }],
    ['ProjectionSkipRequested', { projection: 'blog-posts', position: 2.5 }],
    ['ProjectionSkipRequested', { projection: 'blog-posts', position: '7' }],
    ['ProjectionParked', { projection: 'blog-posts' }],
  ];
  for (const [type, data] of malformed)
    t.equal(controlRequest(stored(type, data)), null, `${type} ${JSON.stringify(data)}`);
  t.equal(
    controlRequest(stored('ProjectionRetryRequested', { projection: 'blog-posts' }, 'blog_post-1')),
    null,
    'another stream',
  );
});
