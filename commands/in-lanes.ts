/**
 * Runs `work(0)` to `work(count - 1)` with at most `lanes` at once, each lane taking the next
 * index as it finishes one. After a failure no new index is started; the call settles once the
 * work under way has, and rejects with the first failure (nothing is left running behind it).
 */
export async function inLanes(count: number, lanes: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  // The first failure, held in a list: a lane's closure sets it, which the compiler's flow
  // analysis of a `let` would not see after the await.
  const failures: unknown[] = [];
  const lane = async () => {
    while (failures.length === 0 && next < count) {
      const index = next++;
      try {
        await work(index);
      } catch (error) {
        if (failures.length === 0) failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(lanes, count)) }, lane));
  if (failures.length > 0) throw failures[0];
}
