/**
 * Runs tasks one at a time per key, in the order they ask. A command that checks the read
 * models for something that must be unique (a slug) and then writes it holds the key from the
 * check until its events are projected, so a concurrent command with the same key checks after
 * it and sees what it wrote. Tasks with different keys run as before, side by side.
 *
 * It serialises the commands of one process; several processes writing one log (production
 * event stores) are not covered.
 */
export class KeyedExclusion {
  /** Per key, the last task asked for, settled or not; removed once it settles with none after it. */
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const tails = this.tails;
    const previous = tails.get(key);
    const result = previous ? previous.then(task) : task();
    // Settles once the task has, after letting go of the key unless a later task holds it now.
    const release = (): void => {
      if (tails.get(key) === tail) tails.delete(key);
    };
    const tail = result.then(release, release);
    tails.set(key, tail);
    return result;
  }

  /** Keys with a task running or waiting (for tests). */
  get size(): number {
    return this.tails.size;
  }
}
