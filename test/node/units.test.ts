/** Unit checks of the node's configuration, dev accounts, genesis artifacts and wire encodings. */
import { readFileSync } from "node:fs";
import { bytesToHex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig, usage } from "../../src/node/config.js";
import {
  DEV_MNEMONIC,
  decodeL1InfoCalldata,
  devAccounts,
  deriveDevAccount,
  l1InfoCalldata,
  syntheticL1Origin,
} from "../../src/chain/index.js";
import { PREDEPLOYS_ARTIFACT_PATH, compilePredeploys } from "../../src/chain/dev-chain/compile-predeploys.js";
import { TxPool } from "../../src/node/pool.js";
import { DEV_ACCOUNT_TABLE } from "../../src/chain/dev-chain/dev-account-table.js";

describe("config", () => {
  it("reads flags over environment over defaults", () => {
    const c = parseConfig(["--port", "9000", "--block-time-ms=1000"], {
      NODE_PORT: "1",
      NODE_HOST: "0.0.0.0",
      NODE_FLASHBLOCK_INTERVAL_MS: "100",
    });
    expect(c).toMatchObject({
      port: 9000,
      host: "0.0.0.0",
      blockTimeMs: 1000,
      flashblockIntervalMs: 100,
      chainId: 901n,
    });
    expect(parseConfig([], {})).toMatchObject({
      host: "127.0.0.1",
      port: 8545,
      blockTimeMs: 2000,
      flashblockIntervalMs: 200,
    });
    expect(parseConfig(["--help"], {})).toBe("help");
  });

  it("refuses bad values with a message naming the flag", () => {
    expect(() => parseConfig(["--port", "http"], {})).toThrow(ConfigError);
    expect(() => parseConfig(["--port", "70000"], {})).toThrow(/--port/);
    expect(() => parseConfig(["--bogus", "1"], {})).toThrow(/unknown flag --bogus/);
    expect(() => parseConfig(["--block-time-ms", "100", "--flashblock-interval-ms", "200"], {})).toThrow(
      /cannot exceed/,
    );
    expect(() => parseConfig(["--chain-id", "0"], {})).toThrow(/--chain-id/);
    expect(() => parseConfig(["--port"], {})).toThrow(/needs a value/);
    expect(() => parseConfig(["--preconfirmed-receipts", "no"], {})).toThrow(/true or false/);
    expect(parseConfig([], { NODE_PRECONFIRMED_RECEIPTS: "false" })).toMatchObject({
      preconfirmedReceipts: false,
    });
  });

  it("reads --rpc-surface and --rpc-eth-proof-window (default full, 0) and refuses an unknown surface", () => {
    expect(parseConfig([], {})).toMatchObject({ surface: { surface: "full", ethProofWindow: 0 } });
    expect(parseConfig(["--rpc-surface", "reth", "--rpc-eth-proof-window", "64"], {})).toMatchObject({
      surface: { surface: "reth", ethProofWindow: 64 },
    });
    expect(parseConfig([], { NODE_RPC_SURFACE: "geth" })).toMatchObject({ surface: { surface: "geth" } });
    expect(() => parseConfig(["--rpc-surface", "erigon"], {})).toThrow(ConfigError);
  });

  it("documents every flag and its environment twin in --help", () => {
    const text = usage();
    for (const f of [
      "--host",
      "--port",
      "--data-dir",
      "--chain-id",
      "--block-time-ms",
      "--flashblock-interval-ms",
      "NODE_HOST",
      "NODE_PORT",
      "NODE_DATA_DIR",
      "NODE_BLOCK_TIME_MS",
      "NODE_FLASHBLOCK_INTERVAL_MS",
      "NODE_CHAIN_ID",
    ]) {
      expect(text).toContain(f);
    }
  });
});

describe("genesis inputs", () => {
  it("derives the well-known test mnemonic accounts", () => {
    const [a0, a1] = devAccounts(2);
    expect(a0).toEqual({
      address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
      privateKey: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    });
    expect(a1!.address).toBe("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
  });

  it("derives dev accounts as viem does from the mnemonic over the whole BIP-44 path, past the table too", () => {
    for (const i of [0, 1, 57, 99, 100, 101]) {
      const viemAccount = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: i });
      expect(deriveDevAccount(i)).toEqual({
        address: viemAccount.address,
        privateKey: bytesToHex(viemAccount.getHdKey().privateKey!),
      });
    }
    expect(devAccounts(102)[101]).toEqual(deriveDevAccount(101));
  });

  it("holds the first 100 dev accounts as derived, in order", () => {
    expect(DEV_ACCOUNT_TABLE).toHaveLength(100);
    const accounts = devAccounts(100);
    for (const [i, account] of accounts.entries()) expect(account).toEqual(deriveDevAccount(i));
  });

  it("has a committed artifact of our own predeploys that matches their sources", () => {
    const committed = JSON.parse(readFileSync(PREDEPLOYS_ARTIFACT_PATH, "utf8")) as {
      deployedBytecode: Record<string, string>;
    };
    expect(compilePredeploys().deployedBytecode).toEqual(committed.deployedBytecode);
  }, 60_000);

  it("encodes Isthmus L1 attributes calldata (176 bytes) with the origin's fees", () => {
    const origin = syntheticL1Origin(1_000n, 1_030n);
    expect(origin.number).toBe(2n);
    const data = l1InfoCalldata(origin, 3n);
    expect(data.length).toBe(176);
    expect(Buffer.from(data.subarray(0, 4)).toString("hex")).toBe("098999be");
    expect(decodeL1InfoCalldata(data)).toMatchObject({
      format: "isthmus",
      number: origin.number,
      sequenceNumber: 3n,
      baseFee: origin.baseFee,
      blobBaseFee: origin.blobBaseFee,
    });
  });
});

describe("pool ordering", () => {
  it("picks the highest effective tip, keeps nonce order per sender and skips fee caps below the base fee", () => {
    const pool = new TxPool();
    const add = (sender: string, nonce: bigint, feeCap: bigint, tipCap: bigint, hashHex: string) =>
      pool.add({
        decoded: {} as never,
        hashHex,
        sender: new Uint8Array(20),
        senderHex: sender,
        nonce,
        gasLimit: 21_000n,
        feeCap,
        tipCap,
      });
    add("a", 0n, 100n, 10n, "a0");
    add("a", 1n, 100n, 50n, "a1");
    add("b", 0n, 100n, 20n, "b0");
    add("c", 0n, 5n, 5n, "c0");
    add("c", 2n, 5n, 5n, "c2");
    // c0 is executable (its fee cap only matters to the sequencer); c2 waits behind the missing c1.
    expect(pool.status(() => 0n)).toEqual({ pending: 4, queued: 1 });
    expect(pool.status(() => 1n)).toEqual({ pending: 1, queued: 4 });
    pool.discard("c2");
    const nonces = new Map<string, bigint>();
    const order: string[] = [];
    for (;;) {
      const tx = pool.best(10n, (s) => nonces.get(s) ?? 0n, new Set());
      if (tx === undefined) break;
      order.push(tx.hashHex);
      pool.take(tx.hashHex);
      nonces.set(tx.senderHex, tx.nonce + 1n);
    }
    expect(order).toEqual(["b0", "a0", "a1"]);
    expect(pool.get("c0")).toBeDefined();
    expect(pool.pendingNonce("a", 0n)).toBe(0n);
  });
});
