/**
 * An abort source whose AbortSignal is only created when a handler asks for it: most requests
 * never look at their signal, and creating one costs more than dispatching a trivial call.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private abortedWith: { reason: unknown } | undefined;

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.abortedWith !== undefined) this.controller.abort(this.abortedWith.reason);
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.abortedWith !== undefined;
  }

  abort(reason: unknown): void {
    if (this.abortedWith !== undefined) return;
    this.abortedWith = { reason };
    this.controller?.abort(reason);
  }
}
