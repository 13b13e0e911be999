/**
 * The SLOAD and SSTORE fast paths (evm-storage-ops.ts) give the library's results: the value codec against the
 * library's helper, and programs mixing SLOAD and SSTORE of stored, absent and repeated (warm) slots (writes of
 * zero, of the original value back, twice to one slot) run on the engine's state manager by an EVM with our
 * handlers and one with the library's, compared on returned values, gas used, refunds, the storage after and
 * errors (including out of gas on the way and SSTORE's 2300-gas sentry).
 */
import { type EVM, createEVM } from "@ethereumjs/evm";
import { Address, bytesToBigInt, bytesToHex, unpadBytes } from "@ethereumjs/util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { installEngineFastPaths } from "./evm-install.js";
import { installStorageOps, storageValueToWord } from "./evm-storage-ops.js";
import { wordToBytes32 } from "./evm-word-ops.js";
import { commonFor } from "./evm-setup.js";
import { buildGenesisState } from "./genesis.js";
import { PreimageStore } from "./preimage-store.js";
import { OpFork } from "./rollup-config.js";
import { BlockStateManager } from "./state.js";
import { PreimageTrieDB } from "./trie-db.js";

const word = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });

describe("storage value codec", () => {
  it("decodes unpadded values as the library's bytesToBigInt does", () => {
    fc.assert(
      fc.property(word, (w) => {
        const bytes = unpadBytes(wordToBytes32(w));
        expect(storageValueToWord(bytes)).toBe(bytes.length === 0 ? 0n : bytesToBigInt(bytes));
        expect(storageValueToWord(bytes)).toBe(w);
      }),
      { numRuns: 500 },
    );
    expect(() => storageValueToWord(new Uint8Array(33))).toThrow(RangeError);
  });
});

describe("SLOAD and SSTORE", () => {
  const CONTRACT = new Address(new Uint8Array(20).fill(0xcc));
  const common = commonFor(11155420n, OpFork.Isthmus);
  /** Slots 0..7 hold values in the pre-state; others are absent. */
  const stored = new Map<bigint, bigint>([
    [0n, 1n],
    [1n, 0xffn],
    [2n, (1n << 256n) - 1n],
    [3n, 1n << 128n],
    [4n, 0x1234n],
    [5n, 1n << 200n],
    [6n, 42n],
    [7n, (1n << 64n) - 1n],
  ]);
  const slot = fc.oneof(fc.integer({ min: 0, max: 11 }).map(BigInt), word);
  type Op = { load: bigint } | { store: bigint; value: bigint };
  const op: fc.Arbitrary<Op> = fc.oneof(
    { weight: 2, arbitrary: slot.map((s) => ({ load: s })) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(slot, fc.oneof(fc.constant(0n), fc.constantFrom(...stored.values()), word))
        .map(([s, value]) => ({ store: s, value })),
    },
  );

  type Entry = { opHandler: unknown; gasHandler: unknown };
  const opcodeMap = (evm: EVM) => (evm as unknown as { _opcodeMap: Entry[] })._opcodeMap;
  type Library = { sload: unknown; sloadGas: unknown; sstore: unknown; sstoreGas: unknown };
  let library0: Library | undefined;

  const push32 = (w: bigint) => [0x7f, ...wordToBytes32(w)];
  /** Each load's value is stored in memory at 32 × its index; the memory is returned. */
  function program(ops: Op[]): Uint8Array {
    const code: number[] = [];
    ops.forEach((o, i) => {
      if ("load" in o) code.push(...push32(o.load), 0x54, 0x61, (i * 32) >> 8, (i * 32) & 0xff, 0x52);
      else code.push(...push32(o.value), ...push32(o.store), 0x55);
    });
    code.push(0x59, 0x5f, 0xf3); // RETURN(0, MSIZE)
    return Uint8Array.from(code);
  }

  async function run(library: Library | undefined, code: Uint8Array, gas: bigint, slots: bigint[]) {
    const store = new PreimageStore();
    const root = buildGenesisState(store, new Map([[CONTRACT.bytes, { code, storage: stored }]]));
    const stateManager = BlockStateManager.create(new PreimageTrieDB(store), root, common);
    const evm: EVM = await createEVM({ common, stateManager });
    // The interpreter reads the opcode map the EVM built from the tables when it was created.
    const loadEntry = opcodeMap(evm)[0x54]!;
    const storeEntry = opcodeMap(evm)[0x55]!;
    if (library !== undefined) {
      loadEntry.opHandler = library.sload;
      loadEntry.gasHandler = library.sloadGas;
      storeEntry.opHandler = library.sstore;
      storeEntry.gasHandler = library.sstoreGas;
    } else {
      expect(loadEntry.opHandler).not.toBe(library0!.sload);
      expect(loadEntry.gasHandler).not.toBe(library0!.sloadGas);
      expect(storeEntry.opHandler).not.toBe(library0!.sstore);
      expect(storeEntry.gasHandler).not.toBe(library0!.sstoreGas);
    }
    const r = await evm.runCall({ to: CONTRACT, gasLimit: gas });
    const storage: string[] = [];
    for (const s of slots)
      storage.push(bytesToHex(await stateManager.getStorage(CONTRACT, wordToBytes32(s))));
    return {
      error: r.execResult.exceptionError?.error,
      gas: r.execResult.executionGasUsed,
      refund: r.execResult.gasRefund,
      memory: bytesToHex(r.execResult.returnValue),
      storage,
    };
  }

  it("gives the library's values, gas and errors on the engine's state manager", async () => {
    await installEngineFastPaths();
    // The install hands back the library's own handlers, whichever file of the worker installed them first.
    const library = await installStorageOps();
    expect(library).toBeDefined();
    library0 = library;
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 16 }),
        fc.oneof(fc.constant(10_000_000n), fc.bigInt({ min: 2_000n, max: 60_000n })),
        async (ops, gas) => {
          const code = program(ops);
          const slots = [...new Set(ops.map((o) => ("load" in o ? o.load : o.store)))];
          const ours = await run(undefined, code, gas, slots);
          expect(ours).toEqual(await run(library, code, gas, slots));
          if (gas === 10_000_000n) expect(ours.error).toBeUndefined();
        },
      ),
      { numRuns: 200 },
    );
  });
});
