/**
 * The service queue (library, rank 2; docs/proof-jobs.md): the proof job queue as the AggregateVerifier services
 * use it.
 *
 * Public surface: `JOB_QUEUE_FLAGS`, `parseJobQueueFlags`, `serviceJobQueue` (the queue opened on first use, with
 * a GET /metrics listener).
 *
 * Concepts owned: none of its own: it joins the queue (src/proof-jobs) to the flags (src/service-kit) and the
 * server core (src/rpc). Apart from src/service-kit so that a process that parses flags without a queue (the
 * enclave) does not load the JSON-RPC server.
 */
export {
  JOB_QUEUE_FLAGS,
  type JobQueueConfig,
  parseJobQueueFlags,
  type ServiceJobQueue,
  serviceJobQueue,
} from "./job-queue.js";
