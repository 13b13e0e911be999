/**
 * The proof job queue as the AggregateVerifier services use it (docs/proof-jobs.md): its flags, the queue opened
 * on first use and the GET /metrics listener. Apart from src/service-kit so that a process that parses flags
 * without a queue (the enclave) does not load the JSON-RPC server.
 */
export {
  JOB_QUEUE_FLAGS,
  type JobQueueConfig,
  parseJobQueueFlags,
  type ServiceJobQueue,
  serviceJobQueue,
} from "./job-queue.js";
