// Builds every addon under native/ with node-gyp against the running Node's own headers: nothing is
// downloaded. The headers are looked up next to the node binary (<prefix>/include/node); NODE_GYP_NODEDIR
// overrides the prefix.
import { spawnSync } from "node:child_process";
import { env, execPath, exit, stderr, stdout } from "node:process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const addons = ["nsm", "vsock"];

function nodeDir() {
  const candidates = [env.NODE_GYP_NODEDIR, dirname(dirname(execPath))].filter(Boolean);
  for (const dir of candidates) {
    if (existsSync(join(dir, "include", "node", "node_api.h"))) return dir;
  }
  throw new Error(
    `no Node headers in ${candidates.map((d) => join(d, "include/node")).join(" or ")}; set NODE_GYP_NODEDIR to a prefix holding include/node (builds never download headers)`,
  );
}

const nodeGyp = createRequire(import.meta.url).resolve("node-gyp/bin/node-gyp.js");
const nodedir = nodeDir();
for (const addon of addons) {
  const cwd = join(here, addon);
  const result = spawnSync(execPath, [nodeGyp, "rebuild", `--nodedir=${nodedir}`, "--loglevel=warn"], {
    cwd,
    stdio: "inherit",
  });
  if (result.status !== 0) {
    stderr.write(`native/${addon}: node-gyp rebuild failed\n`);
    exit(result.status ?? 1);
  }
  stdout.write(`native/${addon}: built\n`);
}
