/**
 * The call-frame set-up (evm-frame.ts) gives the library's results: random programs made of CALL, CALLCODE,
 * DELEGATECALL and STATICCALL to a contract, to precompiles, to an empty account and to the caller, with and
 * without value (some beyond the balance) and with small gas limits, run by an EVM with our `_executeCall`
 * and `runInterpreter` and by one with the library's, compared on everything observable: error, gas, refund,
 * return value, logs, storage and balances.
 */
import { createEVM } from "@ethereumjs/evm";
import { Account, Address, bytesToHex } from "@ethereumjs/util";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { installFrameSetup, libraryFrameSetup } from "./evm-frame.js";
import { commonFor } from "./evm-setup.js";
import { OpFork } from "./rollup-config.js";

const CONTRACT = new Address(new Uint8Array(20).fill(0xcc));
const OTHER = new Address(new Uint8Array(20).fill(0xdd));
const EMPTY = new Address(new Uint8Array(20).fill(0xee));
const CALLER = new Address(new Uint8Array(20).fill(0xaa));
const addressBytes = (a: Address) => [...a.bytes];

async function observe(code: Uint8Array, callee: Uint8Array, value: bigint, library: boolean) {
  const evm = await createEVM({ common: commonFor(11155420n, OpFork.Isthmus) });
  if (library) Object.assign(evm, await libraryFrameSetup());
  await evm.stateManager.putCode(CONTRACT, code);
  await evm.stateManager.putCode(OTHER, callee);
  await evm.stateManager.putAccount(CALLER, new Account(0n, 10n ** 18n));
  await evm.stateManager.putAccount(CONTRACT, new Account(0n, 1000n));
  await evm.stateManager.putCode(CONTRACT, code);
  const r = await evm.runCall({ to: CONTRACT, caller: CALLER, value, gasLimit: 400_000n });
  const slot = (k: number) => new Uint8Array(32).fill(k, 31);
  const storage = await Promise.all(
    [CONTRACT, OTHER].flatMap((a) =>
      [0, 1, 2, 3, 4, 5].map(async (k) => bytesToHex(await evm.stateManager.getStorage(a, slot(k)))),
    ),
  );
  const balances = await Promise.all(
    [CALLER, CONTRACT, OTHER, EMPTY].map(async (a) => (await evm.stateManager.getAccount(a))?.balance),
  );
  return {
    error: r.execResult.exceptionError?.error,
    gas: r.execResult.executionGasUsed,
    refund: r.execResult.gasRefund,
    returnValue: bytesToHex(r.execResult.returnValue),
    logs: (r.execResult.logs ?? []).map((l) => [bytesToHex(l[0]), l[1].map(bytesToHex), bytesToHex(l[2])]),
    storage,
    balances,
  };
}

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ""), "hex"));
const push = (n: number) => (n < 256 ? [0x60, n] : [0x61, n >> 8, n & 0xff]);

/** One call of the family to a target, its success flag and returndata size stored in slots `i` and `i + 3`. */
const callSegment = fc
  .record({
    op: fc.constantFrom(0xf1, 0xf2, 0xf4, 0xfa),
    target: fc.constantFrom(OTHER, EMPTY, CALLER, CONTRACT, 2, 4, 1),
    value: fc.constantFrom(0, 1, 999, 5000),
    gas: fc.constantFrom(0, 30, 3000, 50_000),
    argSize: fc.integer({ min: 0, max: 64 }),
    slot: fc.integer({ min: 0, max: 2 }),
  })
  .map(({ op, target, value, gas, argSize, slot }) => {
    const to = typeof target === "number" ? [0x60, target] : [0x73, ...addressBytes(target)];
    const withValue = op === 0xf1 || op === 0xf2 ? push(value) : [];
    // retSize, retOffset, argSize, argOffset, [value], to, gas, CALL*
    return [
      ...push(32),
      ...push(0),
      ...push(argSize),
      ...push(0),
      ...withValue,
      ...to,
      ...push(gas),
      op,
      ...push(slot),
      0x55,
      0x3d,
      ...push(slot + 3),
      0x55,
    ];
  });

const codeOf = (segments: number[][], tail: readonly number[]) =>
  Uint8Array.from([...segments.flat(), ...tail]);
const tails = fc.constantFrom([0x00], [0x60, 0x20, 0x60, 0x00, 0xf3], [0x60, 0x20, 0x60, 0x00, 0xfd], [0xfe]);

/** The callee: SSTORE, LOG1, then STOP / RETURN / REVERT / INVALID, or a call of its own. */
const callee = fc.oneof(
  tails.map((tail) => Uint8Array.from([0x60, 0x2a, 0x60, 0x01, 0x55, 0x60, 0x20, 0x60, 0x00, 0xa0, ...tail])),
  fc.tuple(fc.array(callSegment, { maxLength: 2 }), tails).map(([s, t]) => codeOf(s, t)),
);

describe("call-frame set-up", () => {
  beforeAll(async () => {
    expect(await installFrameSetup()).toBe(true);
  });

  it("gives the library's result on hand-written calls", async () => {
    const other = hex("60 2a 60 01 55 60 07 60 00 52 60 20 60 00 a0 60 20 60 00 f3");
    const programs = [
      // CALL OTHER with value and all gas, store success and returndata size
      codeOf(
        [
          [
            ...push(32),
            ...push(0),
            ...push(0),
            ...push(0),
            ...push(5),
            0x73,
            ...addressBytes(OTHER),
            0x5a,
            0xf1,
          ],
        ],
        [0x00],
      ),
      // identity precompile on 32 bytes of memory, return its output
      hex("60 05 60 00 52 60 20 60 20 60 20 60 00 60 04 5a fa 50 60 20 60 20 f3"),
      // value beyond the balance: the call fails, the frame goes on
      codeOf(
        [
          [
            ...push(32),
            ...push(0),
            ...push(0),
            ...push(0),
            0x61,
            0xff,
            0xff,
            0x73,
            ...addressBytes(EMPTY),
            0x5a,
            0xf1,
            ...push(0),
            0x55,
          ],
        ],
        [0x00],
      ),
    ];
    for (const code of programs) {
      for (const value of [0n, 7n]) {
        expect(await observe(code, other, value, false)).toEqual(await observe(code, other, value, true));
      }
    }
  });

  it("gives the library's result on random call programs (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(callSegment, { minLength: 1, maxLength: 4 }),
        tails,
        callee,
        fc.constantFrom(0n, 3n),
        async (segments, tail, calleeCode, value) => {
          const code = codeOf(segments, tail);
          const ours = await observe(code, calleeCode, value, false);
          const library = await observe(code, calleeCode, value, true);
          expect(ours).toEqual(library);
        },
      ),
      { numRuns: 120 },
    );
  });
});
