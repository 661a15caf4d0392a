import { Type, type Static } from '@sinclair/typebox';

/**
 * Page version history's write body: the route validates it (routes/page-versioning/index.ts),
 * the handler takes its type (handlers.ts). The default summary is the decider's (revert-summary.ts).
 */

/** POST /api/page-versioning/version/{versionId}/revert (no body at all: no summary). */
export const RevertBody = Type.Object({
  summary: Type.Optional(
    Type.String({
      maxLength: 1000,
      description: 'Note recorded with the revert; default `Reverted to version #N (saved YYYY-MM-DD HH:MM:SS)`.',
    }),
  ),
});
export type RevertInput = Static<typeof RevertBody>;
