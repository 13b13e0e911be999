/**
 * Counters of the requests one caller makes to its endpoints: a small object the caller creates and passes to its
 * clients (`HttpLimits.stats`), so one witness collection, one benchmark round or one test reads what it cost
 * without anything shared between callers. Each finished request (answered, refused or failed) counts once.
 */
export class RequestStats {
  /** Requests finished. */
  requests = 0;
  /** Bytes of the answers' bodies. */
  responseBytes = 0;
  /** Bytes of the requests' bodies. */
  requestBytes = 0;
  /** Milliseconds of every request, summed (concurrent requests each count). */
  requestMs = 0;
  /** Milliseconds of wall time with at least one request in flight. */
  busyMs = 0;
  /** Requests per method (JSON-RPC method, or what a GET was for). */
  readonly byMethod: Record<string, number> = {};
  private inFlight = 0;
  private busySince = 0;

  /** Marks a request `what` as sent; the returned function marks it finished with `responseBytes` read. */
  begin(what: string, requestBytes: number): (responseBytes: number) => void {
    const t = performance.now();
    if (this.inFlight++ === 0) this.busySince = t;
    this.requestBytes += requestBytes;
    let done = false;
    return (responseBytes) => {
      if (done) return;
      done = true;
      const now = performance.now();
      this.requests++;
      this.responseBytes += responseBytes;
      this.requestMs += now - t;
      this.byMethod[what] = (this.byMethod[what] ?? 0) + 1;
      if (--this.inFlight === 0) this.busyMs += now - this.busySince;
    };
  }
}
