import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BATCHER_USAGE, type BatcherConfig, parseBatcherCommandLine } from "./config.js";
import { BatcherConfigError } from "./errors.js";

const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const BASE = ["--l1-rpc-url", "http://127.0.0.1:8546", "--l2-rpc-url", "http://127.0.0.1:8545"];
const INBOX = ["--batch-inbox", "0xff00000000000000000000000000000000000901"];
const dir = mkdtempSync(join(tmpdir(), "batcher-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(argv: string[], env: NodeJS.ProcessEnv = { BATCHER_PRIVATE_KEY: KEY }): BatcherConfig {
  const parsed = parseBatcherCommandLine(argv, env);
  if (parsed.kind !== "run") throw new Error("expected a run configuration");
  return parsed.config;
}

function refusal(argv: string[], env: NodeJS.ProcessEnv = { BATCHER_PRIVATE_KEY: KEY }): BatcherConfigError {
  try {
    parseBatcherCommandLine(argv, env);
  } catch (e) {
    if (e instanceof BatcherConfigError) return e;
    throw e;
  }
  throw new Error("expected a refusal");
}

describe("batcher command line", () => {
  it("--help lists every flag with its environment twin", () => {
    const parsed = parseBatcherCommandLine(["--help"], {});
    expect(parsed).toEqual({ kind: "help", text: BATCHER_USAGE });
    for (const flag of ["--l1-rpc-url", "--data-availability", "--max-channel-duration", "--metrics-listen"])
      expect(BATCHER_USAGE).toContain(flag);
    for (const variable of ["BATCHER_L1_RPC_URL", "BATCHER_PRIVATE_KEY", "BATCHER_PRIVATE_KEY_FILE"])
      expect(BATCHER_USAGE).toContain(variable);
  });

  it("defaults: blobs, zlib, 6 frames per channel, op-batcher's sizes and duration", () => {
    const c = run([...BASE, ...INBOX]);
    expect(c.settings.dataAvailability).toBe("blobs");
    expect(c.settings.compression).toBe("zlib");
    expect(c.settings.targetNumFrames).toBe(6);
    expect(c.settings.maxBlobsPerTx).toBe(6);
    expect(c.settings.maxCalldataTxBytes).toBe(120_000);
    expect(c.settings.maxChannelDuration).toBe(0);
    expect(c.settings.channelTimeout).toBe(50n);
    expect(c.l1BeaconUrl).toBe("http://127.0.0.1:8546");
    expect(c.privateKey).toBe(KEY);
    expect(c.metricsListen).toBeUndefined();
    expect(run([...BASE, ...INBOX, "--data-availability", "calldata"]).settings.targetNumFrames).toBe(1);
  });

  it("reads every value from the environment twin when the flag is absent; the flag wins", () => {
    const env = {
      BATCHER_PRIVATE_KEY: KEY,
      BATCHER_L1_RPC_URL: "http://l1:1",
      BATCHER_L2_RPC_URL: "http://l2:2",
      BATCHER_BATCH_INBOX: "0xff00000000000000000000000000000000000902",
      BATCHER_DATA_AVAILABILITY: "calldata",
      BATCHER_COMPRESSION: "brotli",
      BATCHER_MAX_CHANNEL_DURATION: "7",
      BATCHER_METRICS_LISTEN: "127.0.0.1:0",
    };
    const c = run([], env);
    expect(c.l1RpcUrl).toBe("http://l1:1");
    expect(c.batchInbox.toLowerCase()).toBe("0xff00000000000000000000000000000000000902");
    expect(c.settings.dataAvailability).toBe("calldata");
    expect(c.settings.compression).toBe("brotli");
    expect(c.settings.maxChannelDuration).toBe(7);
    expect(c.metricsListen).toEqual({ host: "127.0.0.1", port: 0 });
    expect(run(["--max-channel-duration", "3"], env).settings.maxChannelDuration).toBe(3);
  });

  it("takes the key from a file, never from the command line", () => {
    const file = join(dir, "key");
    writeFileSync(file, `${KEY}\n`);
    expect(run([...BASE, ...INBOX, "--private-key-file", file], {}).privateKey).toBe(KEY);
    expect(refusal([...BASE, ...INBOX, "--private-key", KEY], {})).toBeInstanceOf(BatcherConfigError);
    expect(refusal([...BASE, ...INBOX], {}).details.flag).toBe("private-key-file");
    expect(refusal([...BASE, ...INBOX], { BATCHER_PRIVATE_KEY: "0x1234" }).kind).toBe("config");
  });

  it("refuses bad values naming the flag", () => {
    expect(refusal([...BASE]).details.flag).toBe("batch-inbox");
    expect(refusal([...BASE, ...INBOX, "--data-availability", "celestia"]).details.flag).toBe(
      "data-availability",
    );
    expect(refusal([...BASE, ...INBOX, "--max-blobs-per-tx", "7"]).details.flag).toBe("max-blobs-per-tx");
    expect(refusal([...INBOX, "--l2-rpc-url", "http://x:1"]).details.flag).toBe("l1-rpc-url");
    expect(refusal([...BASE, ...INBOX, "--metrics-listen", "nope"]).details.flag).toBe("metrics-listen");
  });

  it("a rollup config gives the inbox, block time, genesis time, chain id and windows", () => {
    const file = join(dir, "rollup.json");
    writeFileSync(
      file,
      JSON.stringify({
        l2_chain_id: 901,
        block_time: 2,
        batch_inbox_address: "0xff00000000000000000000000000000000000901",
        seq_window_size: 120,
        granite_channel_timeout: 40,
        genesis: { l2_time: 1_767_225_600 },
      }),
    );
    const c = run([...BASE, "--rollup-config", file]);
    expect(c.batchInbox).toBe("0xFf00000000000000000000000000000000000901");
    expect(c.l2ChainId).toBe(901n);
    expect(c.l2GenesisTime).toBe(1_767_225_600n);
    expect(c.settings.seqWindowSize).toBe(120n);
    expect(c.settings.channelTimeout).toBe(40n);
  });
});
