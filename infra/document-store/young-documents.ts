import { Fifo } from '../fifo.js';
import type { Document } from './port.js';

interface YoungDocument<Owner> {
  owner: Owner;
  doc: Document;
  chars: number;
}

/**
 * Documents stored with long strings that are not spilled yet, oldest first. Most documents
 * are replaced soon after they are written or not at all (a post is created, then published,
 * then edited; a replay writes each of them in a row), so a document is spilled only once it
 * has aged: when the young ones hold more than `budgetChars` characters of long strings (the
 * oldest half then go), or when nothing has been stored for `idleMs`. A document replaced
 * while young is never spilled, and holding the young ones costs at most the budget.
 */
export class YoungDocuments<Owner> {
  private readonly young = new Fifo<YoungDocument<Owner>>();
  private chars = 0;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly budgetChars: number,
    private readonly idleMs: number,
    /** Spills the document if it is still the one its owner stores. */
    private readonly spill: (owner: Owner, doc: Document) => void,
  ) {}

  add(owner: Owner, doc: Document, chars: number): void {
    this.young.push({ owner, doc, chars });
    this.chars += chars;
    if (this.chars > this.budgetChars) this.spillDownTo(this.budgetChars / 2);
    if (this.young.length > 0) this.spillWhenIdle();
  }

  /** Spills every young document now. */
  spillAll(): void {
    this.spillDownTo(0);
  }

  /** Forgets the young documents without spilling them (the store is closing, or was emptied). */
  clear(): void {
    while (this.young.take()) {
      // Dropped.
    }
    this.chars = 0;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private spillDownTo(chars: number): void {
    while (this.chars > chars) {
      const oldest = this.young.take();
      if (!oldest) break;
      this.chars -= oldest.chars;
      this.spill(oldest.owner, oldest.doc);
    }
    if (this.young.length === 0) this.chars = 0;
  }

  private spillWhenIdle(): void {
    if (this.idleTimer) this.idleTimer.refresh();
    else {
      this.idleTimer = setTimeout(() => {
        this.idleTimer = null;
        this.spillAll();
      }, this.idleMs);
      // A process with nothing else to do may exit: the documents die with it.
      this.idleTimer.unref();
    }
  }
}
