/**
 * Node flags of `npm run rebuild` (package.json runs bin/rebuild.ts with them; a test keeps the
 * two in step, and the replay benchmark runs its rebuild with them too). A replay allocates a
 * short-lived object per event (the decoded event, its data and metadata) at a high rate: a
 * 64 MB young generation lets most of them die there instead of being copied and promoted, a
 * quarter more events per second at 300,000 events. `npm start` keeps V8's defaults: a larger
 * young generation would raise its resident memory, and --optimize-for-size, which took the
 * server holding 100,000 posts and chunks from 507 to 426 MB, cost a third of its read and
 * write throughput.
 */
export const REBUILD_NODE_FLAGS = ['--max-semi-space-size=64'] as const;

/**
 * Events read and applied per batch by `npm run rebuild` (and the replay benchmark): 1,000, as
 * the start-up catch-up reads. With 5,000 a batch's decoded events were still alive at each
 * young-generation collection and were copied there; 1,000 replayed 6% more events per second
 * (93,547 against 99,399 at 100,000 events, rounds alternated), 500 no more than 1,000.
 */
export const REBUILD_BATCH_EVENTS = 1000;
