/**
 * The block worker thread's entry (pool.ts starts it; a WORKER_ENTRIES bundle of its own): block-worker.ts serving
 * the pool's jobs.
 */
import { serveBlockJobs } from "./block-worker.js";

serveBlockJobs();
