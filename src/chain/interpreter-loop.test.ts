import { createEVM } from "@ethereumjs/evm";
import { Address, bytesToHex } from "@ethereumjs/util";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { commonFor } from "./evm-setup.js";
import { installSyncInterpreterLoop, syncInterpreterLoopActive } from "./interpreter-loop.js";
import { OpFork } from "./rollup-config.js";

const CONTRACT = new Address(new Uint8Array(20).fill(0xcc));
const OTHER = new Address(new Uint8Array(20).fill(0xdd));
const CALLER = new Address(new Uint8Array(20).fill(0xaa));

/**
 * Runs `code` at CONTRACT (which can call OTHER, whose code is `callee`) on a fresh EVM and reports everything
 * observable. `library` turns on the library's profiler, which sends the interpreter down the library's own loop
 * (and each call frame through the library's own code). Not a `step` listener: the library's step hook reads the
 * memory a REVERT names before its gas is charged, so REVERT(0x60, CALLER) threw "Invalid typed array length"
 * there where both loops run out of gas (found by this property; no step listener is used outside tests).
 */
async function observe(code: Uint8Array, callee: Uint8Array, data: Uint8Array, library: boolean) {
  const evm = await createEVM({
    common: commonFor(11155420n, OpFork.Isthmus),
    ...(library ? { profiler: { enabled: true } } : {}),
  });
  await evm.stateManager.putCode(CONTRACT, code);
  await evm.stateManager.putCode(OTHER, callee);
  let r;
  try {
    r = await evm.runCall({ to: CONTRACT, caller: CALLER, data, gasLimit: 300_000n });
  } catch (e) {
    // An opcode the test's environment cannot serve (BASEFEE: the default block has no base fee) throws out of
    // either loop: the same throw is the same result.
    return { thrown: (e as Error).message };
  }
  const storage = await Promise.all(
    [0n, 1n, 2n].map(async (k) =>
      bytesToHex(await evm.stateManager.getStorage(CONTRACT, new Uint8Array(32).fill(Number(k), 31))),
    ),
  );
  return {
    error: r.execResult.exceptionError?.error,
    gas: r.execResult.executionGasUsed,
    refund: r.execResult.gasRefund,
    returnValue: bytesToHex(r.execResult.returnValue),
    logs: (r.execResult.logs ?? []).map((l) => [bytesToHex(l[0]), l[1].map(bytesToHex), bytesToHex(l[2])]),
    storage,
  };
}

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ""), "hex"));

/** Opcodes weighted towards ones that do something with few operands, plus any byte (invalid ones too). */
const opcodeByte = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(0x60, 0x61, 0x7f, 0x80, 0x81, 0x90, 0x91, 0x5f, 0x50) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(0x01, 0x02, 0x03, 0x04, 0x06, 0x0a, 0x10, 0x11, 0x14, 0x15, 0x16, 0x1b, 0x1c),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(0x51, 0x52, 0x53, 0x54, 0x55, 0x5c, 0x5d, 0x5e, 0x59, 0x20, 0x35, 0x36, 0x37),
  },
  { weight: 2, arbitrary: fc.constantFrom(0x56, 0x57, 0x5b, 0x58, 0x5a, 0x00, 0xf3, 0xfd, 0xfe, 0xa0, 0xa1) },
  { weight: 2, arbitrary: fc.constantFrom(0xf1, 0xf4, 0xfa, 0x3b, 0x3f, 0x31, 0x47, 0x30, 0x33, 0x43, 0x42) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }) },
);
const program = fc.array(opcodeByte, { maxLength: 80 }).map((a) => Uint8Array.from(a));

describe("synchronous interpreter loop", () => {
  beforeAll(async () => {
    await installSyncInterpreterLoop();
  });

  it("replaces the library's loop on this version of @ethereumjs/evm", () => {
    expect(syncInterpreterLoopActive()).toBe(true);
  });

  it("gives the library loop's result on hand-written programs (loops, memory, storage, calls, logs, reverts, errors)", async () => {
    const callee = hex("60 2a 60 00 55 60 20 60 00 f3"); // SSTORE(0, 42); RETURN(0, 32)
    const programs = [
      // count down from 200 in a JUMPI loop, storing the counter
      hex("60 c8 5b 80 60 01 55 60 01 90 03 80 60 02 57 00"),
      // MSTORE/MLOAD/KECCAK256, LOG1, RETURN
      hex("7f" + "11".repeat(32) + " 60 00 52 60 20 60 00 20 60 00 55 60 20 60 00 a1 60 20 60 00 f3"),
      // CALL OTHER with all gas, store the result and returndata size
      hex("60 00 60 00 60 00 60 00 60 00 73" + "dd".repeat(20) + " 5a f1 60 00 55 3d 60 01 55 00"),
      // REVERT with data, INVALID, stack underflow, bad jump, out of gas in an endless loop
      hex("60 07 60 00 52 60 20 60 00 fd"),
      hex("60 01 60 00 55 fe"),
      hex("01"),
      hex("60 05 56 00 00 00"),
      hex("5b 60 01 60 00 55 60 00 56"),
      // BASEFEE on a block without one: both loops throw the same error
      hex("48"),
      // REVERT(0x60, CALLER): a length past any memory runs out of gas in both loops
      hex("33 60 60 fd"),
      // transient storage and MCOPY
      hex("60 05 60 01 5d 60 01 5c 60 00 52 60 20 60 00 60 20 5e 60 40 60 00 f3"),
    ];
    for (const code of programs) {
      const fast = await observe(code, callee, new Uint8Array(0), false);
      const library = await observe(code, callee, new Uint8Array(0), true);
      expect(fast).toEqual(library);
    }
  });

  it("gives the library loop's result on random programs (property)", async () => {
    await fc.assert(
      fc.asyncProperty(program, program, fc.uint8Array({ maxLength: 40 }), async (code, callee, data) => {
        const fast = await observe(code, callee, data, false);
        const library = await observe(code, callee, data, true);
        expect(fast).toEqual(library);
      }),
      { numRuns: 150 },
    );
  });
});
