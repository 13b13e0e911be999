/**
 * Setup file of the process lane: names this run's service bundles (built by bundles.global-setup.ts) in
 * OP_SERVICE_BUNDLES for the spawn helpers (src/bundles `nodeArgs`) and the processes they start.
 */
import { inject } from "vitest";
import { BUNDLE_DIR_ENV } from "../../src/bundles/index.js";

process.env[BUNDLE_DIR_ENV] = inject("serviceBundles");
