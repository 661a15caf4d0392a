/**
 * A first-in first-out queue with O(1) take. `Array.prototype.shift` moves every element once an
 * array is large (V8 cannot trim arrays in its large-object space), which made a start-up backlog
 * of 100,000 index jobs quadratic.
 */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest item, removed; undefined when empty. */
  take(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined as T;
    this.head += 1;
    // Drop the taken prefix once it is most of the array: amortised O(1) per item.
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}
