import t from 'tap';
import { MemoryDocumentStore } from '../../../infra/document-store/memory.js';
import type { StoredEvent } from '../../../infra/event-store/port.js';
import { applyStored } from '../../../projections/runner.js';
import { clickCountsProjection } from '../../../projections/directory/clicks.js';
import { clickCounts } from '../../../queries/directory/clicks.js';

function click(position: number, handle: string, at: string): StoredEvent {
  return {
    streamId: `directory-clicks-${handle}`,
    streamVersion: position,
    position,
    type: 'DatabaseLinkClicked',
    data: { handle, clicked_at: at },
    metadata: { userId: null, at },
  };
}

t.test('click counts per database and UTC day; a redelivered click is not counted twice', async (t) => {
  const documents = new MemoryDocumentStore();
  const events = [
    click(1, 'jstor', '2026-03-01T00:00:00.000Z'),
    click(2, 'jstor', '2026-03-01T23:59:59.999Z'),
    click(3, 'pubmed', '2026-03-01T12:00:00.000Z'),
    click(4, 'jstor', '2026-03-02T00:00:00.000Z'),
  ];
  for (const event of events) await applyStored(clickCountsProjection, event, documents);
  await applyStored(clickCountsProjection, events[1], documents);
  await applyStored(clickCountsProjection, events[3], documents);
  t.same(await clickCounts(documents, {}), [
    { handle: 'jstor', date: '2026-03-01', count: 2 },
    { handle: 'pubmed', date: '2026-03-01', count: 1 },
    { handle: 'jstor', date: '2026-03-02', count: 1 },
  ]);
});
