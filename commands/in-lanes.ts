/**
 * Runs `work(0)` to `work(count - 1)` with at most `lanes` at once, each lane taking the next
 * index as it finishes one. After a failure no new index is started; the call settles once the
 * work under way has, and rejects with the first failure (nothing is left running behind it).
 */
export async function inLanes(count: number, lanes: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const lane = async () => {
    while (failure === null && next < count) {
      const index = next++;
      try {
        await work(index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(lanes, count)) }, lane));
  if (failure !== null) throw (failure as { error: unknown }).error;
}
