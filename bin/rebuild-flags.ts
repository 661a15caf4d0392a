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
