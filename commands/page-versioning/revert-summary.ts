/** The note a revert records when the editor gave none (seed: `Reverted to version #N (saved ...)`). */
export function defaultRevertSummary(versionId: number, savedAt: string): string {
  return `Reverted to version #${versionId} (saved ${savedAt})`;
}

/** The editor's note, trimmed; a blank one counts as none. */
export function revertSummary(given: string | null | undefined, versionId: number, savedAt: string): string {
  const note = given?.trim();
  return note ? note : defaultRevertSummary(versionId, savedAt);
}
