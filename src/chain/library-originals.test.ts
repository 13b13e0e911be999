/**
 * A second copy of the engine's modules in one process (here: the source modules evaluated again after
 * `vi.resetModules()`, as the secp256k1 and KZG tests do in a shared test worker) finds the library's own
 * functions, not the first copy's replacements.
 */
import { afterAll, describe, expect, it, vi } from "vitest";
import { libraryEntry, libraryMember } from "./library-originals.js";

describe("library originals", () => {
  afterAll(() => {
    vi.resetModules();
  });

  it("answer the first value read from a slot, after it was replaced", () => {
    const library = () => "library";
    const holder: Record<string, unknown> = { run: library };
    expect(libraryMember(holder, "run")).toBe(library);
    holder.run = () => "engine";
    expect(libraryMember(holder, "run")).toBe(library);
    expect(libraryMember({ run: holder.run }, "run")).toBe(holder.run);

    const table = new Map<number, string>([[0x52, "library mstore"]]);
    expect(libraryEntry(table, 0x52)).toBe("library mstore");
    table.set(0x52, "engine mstore");
    expect(libraryEntry(table, 0x52)).toBe("library mstore");
    expect(libraryEntry(table, 0x51)).toBeUndefined();
  });

  it("are what a second copy of the engine's installers hands back as the library's", async () => {
    /** Every installer's answer (the library's functions it replaced), from one copy of the modules. */
    async function installAll() {
      const [fastPaths, wordOps, stackOps, memoryGas, storageOps, frame, loop, install] = await Promise.all([
        import("./evm-fast-paths.js"),
        import("./evm-word-ops.js"),
        import("./evm-stack-ops.js"),
        import("./evm-memory-gas.js"),
        import("./evm-storage-ops.js"),
        import("./evm-frame.js"),
        import("./interpreter-loop.js"),
        import("./evm-install.js"),
      ]);
      await install.installEngineFastPaths();
      return {
        copy: fastPaths,
        library: {
          jumpAnalysis: await fastPaths.installJumpAnalysisCache(),
          wordOps: await wordOps.installWordOps(),
          stackOps: await stackOps.installStackOps(),
          memoryGas: await memoryGas.installMemoryGas(),
          storageOps: await storageOps.installStorageOps(),
          frame: await frame.libraryFrameSetup(),
        },
        loopActive: loop.syncInterpreterLoopActive(),
      };
    }
    const interpreter = (await import(
      new URL("./interpreter.js", import.meta.resolve("@ethereumjs/evm")).href
    )) as { Interpreter: { prototype: { _getValidJumpDestinations: unknown; run: unknown } } };
    const proto = interpreter.Interpreter.prototype;

    const first = await installAll();
    const firstReplacement = proto._getValidJumpDestinations;
    const firstRun = proto.run;
    expect(first.library.jumpAnalysis).toBeDefined();
    expect(first.library.jumpAnalysis).not.toBe(firstReplacement);

    vi.resetModules();
    const second = await installAll();
    expect(second.copy).not.toBe(first.copy);
    expect(second.library).toEqual(first.library);
    expect(second.library.jumpAnalysis).toBe(first.library.jumpAnalysis);
    expect(second.library.wordOps!.mstore).toBe(first.library.wordOps!.mstore);
    expect(second.library.frame!._executeCall).toBe(first.library.frame!._executeCall);
    expect(second.loopActive).toBe(true);
    // The second copy's replacements are installed, each over the library's function.
    expect(proto._getValidJumpDestinations).not.toBe(firstReplacement);
    expect(proto.run).not.toBe(firstRun);

    // The jump analysis the second copy installed answers as the library's does.
    const code = Uint8Array.of(0x60, 0x5b, 0x5b, 0x61, 0x01, 0x02, 0x56, 0x7f, 0xff);
    const lookup = (op: number) => ({ op });
    const self = { lookupOpInfo: lookup, common: { isActivatedEIP: () => false }, _evm: {} };
    const library = first.library.jumpAnalysis as (this: unknown, code: Uint8Array) => unknown;
    const installed = proto._getValidJumpDestinations as (this: unknown, code: Uint8Array) => unknown;
    expect(installed.call(self, code)).toEqual(library.call(self, code));
  });
});
