/**
 * In-process marks on orders being worked on by a request (from before its compare-and-set until
 * its transaction is recorded and sent), so the reconciler never re-drives an order whose request
 * is still in flight. Across processes, the compare-and-set on the state and the attempt record
 * are what keep one transaction per decision.
 */
export class OrderLocks {
  private readonly held = new Map<string, number>();

  isHeld(id: string): boolean {
    return this.held.has(id);
  }

  /** Marks the order (marks nest); returns the release function, idempotent. */
  acquire(id: string): () => void {
    this.held.set(id, (this.held.get(id) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const count = (this.held.get(id) ?? 1) - 1;
      if (count <= 0) this.held.delete(id);
      else this.held.set(id, count);
    };
  }

  /** Marks the order only when nobody else holds it. */
  tryAcquire(id: string): (() => void) | null {
    if (this.held.has(id)) return null;
    return this.acquire(id);
  }
}
