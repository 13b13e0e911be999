/**
 * Checks of a block's witness record (src/node/witness-record.ts) against the execution it stands in for, shared by
 * the sequencer's and the replica's tests: the record alone executes the block to its hash, and it holds every trie
 * node, code, header and key that executing the block from its parent reads. Also the storage contract both tests
 * drive (a slot set or cleared per transaction).
 */
import type { Hex } from "viem";
import { expect } from "vitest";
import {
  type BlockHeader,
  PreimageStore,
  type RollupConfig,
  executeBlock,
  toHexRaw,
} from "../../src/chain/index.js";
import { type BlockWitness, executeWithWitness } from "../../src/node/execution-witness.js";
import { attributesOf } from "../../src/node/replica/leader-data.js";
import type { BlockStore, StoredBlock } from "../../src/node/store/block-store.js";

/** Runtime: SSTORE(calldata[0:32], calldata[32:64]); STOP. */
export const STORAGE_RUNTIME = "6020356000355500";
/** Init code returning STORAGE_RUNTIME (8 bytes at offset 12). */
export const STORAGE_INIT = `0x6008600c60003960086000f3${STORAGE_RUNTIME}` as Hex;

/** Call data setting `slot` to `value` in the storage contract. */
export function storageCall(slot: bigint, value: bigint): Hex {
  const word = (n: bigint): string => n.toString(16).padStart(64, "0");
  return `0x${word(slot)}${word(value)}`;
}

export const hexSet = (values: Uint8Array[]): Set<string> => new Set(values.map(toHexRaw));

/** Executes `block` on `parent` from the witness's values alone; answers the hash it gets. */
export async function executeFromWitness(
  config: RollupConfig,
  parent: BlockHeader,
  block: StoredBlock,
  witness: BlockWitness,
): Promise<string> {
  const source = new PreimageStore();
  for (const value of [...witness.state, ...witness.codes, ...witness.headers]) source.putKeccak256(value);
  const sealed = await executeBlock({
    config,
    parent,
    attributes: attributesOf(config, block.header.number, block.header),
    transactions: block.transactions,
    source,
  });
  return toHexRaw(sealed.blockHash);
}

/**
 * Expects `witness` (block `number`'s record) to execute the block alone to its hash and to hold what executing the
 * block from its parent in `store` reads: every trie node and key (a record may hold more), the same codes and headers.
 */
export async function expectRecordCovers(
  config: RollupConfig,
  store: BlockStore,
  number: bigint,
  witness: BlockWitness,
): Promise<void> {
  const parent = store.blockByNumber(number - 1n)!;
  const block = store.blockByNumber(number)!;
  expect(await executeFromWitness(config, parent.header, block, witness), `block ${number}`).toBe(
    toHexRaw(block.hash),
  );
  const executed = await executeWithWitness({
    config,
    store,
    parent: parent.header,
    attributes: attributesOf(config, number, block.header),
    transactions: block.transactions,
  });
  expect(toHexRaw(executed.block.blockHash)).toBe(toHexRaw(block.hash));
  const state = hexSet(witness.state);
  for (const node of executed.witness.state) expect(state.has(toHexRaw(node)), `block ${number}`).toBe(true);
  expect(hexSet(witness.codes)).toEqual(hexSet(executed.witness.codes));
  expect(witness.headers.map(toHexRaw)).toEqual(executed.witness.headers.map(toHexRaw));
  const keys = hexSet(witness.keys);
  for (const key of executed.witness.keys) expect(keys.has(toHexRaw(key)), `block ${number}`).toBe(true);
}
