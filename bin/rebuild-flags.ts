/**
 * Node flags of `npm run rebuild` (package.json runs bin/rebuild.ts with them; a test keeps the
 * two in step, and the replay benchmark runs its rebuild with them too). A replay allocates a
 * short-lived object per event (the decoded event, its data and metadata) at a high rate: a
 * 64 MB young generation lets most of them die there instead of being copied and promoted, a
 * quarter more events per second at 300,000 events. The server keeps V8's default, which holds
 * its resident memory lower.
 */
export const REBUILD_NODE_FLAGS = ['--max-semi-space-size=64'] as const;
