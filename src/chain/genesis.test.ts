import { MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, Address } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { buildGenesisState } from "./genesis.js";
import { bigIntToWord, fromHex, toHex } from "./hex.js";
import { keccak256 } from "./keccak.js";
import { PreimageStore } from "./preimage-store.js";

describe("buildGenesisState", () => {
  it("gives the same state root as @ethereumjs/statemanager and stores code and nodes", async () => {
    const code = fromHex("0x600160005500");
    const a = fromHex("0x00000000000000000000000000000000000000aa");
    const b = fromHex("0x00000000000000000000000000000000000000bb");
    const store = new PreimageStore();
    const root = buildGenesisState(
      store,
      new Map([
        [a, { balance: 10n ** 18n, nonce: 3n }],
        [
          b,
          {
            code,
            storage: [
              [0n, 7n],
              [5n, 0n],
              [2n ** 200n, 1n],
            ] as [bigint, bigint][],
          },
        ],
      ]),
    );
    const reference = new MerkleStateManager();
    await reference.putAccount(new Address(a), new Account(3n, 10n ** 18n));
    await reference.putAccount(new Address(b), new Account());
    await reference.putCode(new Address(b), code);
    await reference.putStorage(new Address(b), bigIntToWord(0n), Uint8Array.of(7));
    await reference.putStorage(new Address(b), bigIntToWord(2n ** 200n), Uint8Array.of(1));
    expect(toHex(root)).toBe(toHex(await reference.getStateRoot()));
    expect(store.getByKeccak256(keccak256(code))).toEqual(code);
    expect(store.getByKeccak256(root).length).toBeGreaterThan(0);
  });
});
