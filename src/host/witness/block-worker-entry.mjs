// The host's block worker's entry point: plain JavaScript, because Node 20 does not pass the main thread's
// TypeScript loader (tsx) on to worker threads. It registers tsx in this thread, then loads the worker.
import { register } from "tsx/esm/api";

register();
await import("./block-worker.ts");
