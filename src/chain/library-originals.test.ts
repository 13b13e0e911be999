/**
 * A second copy of the engine's modules in one process (here: each installer's module imported again under a query
 * on its URL, the copy a test worker holds after re-evaluating source modules) finds the library's own functions,
 * not the first copy's replacements.
 */
import { describe, expect, it } from "vitest";
import { installEngineFastPaths } from "./evm-install.js";
import { libraryEntry, libraryMember } from "./library-originals.js";

type Modules = readonly [
  typeof import("./evm-fast-paths.js"),
  typeof import("./evm-word-ops.js"),
  typeof import("./evm-stack-ops.js"),
  typeof import("./evm-memory-gas.js"),
  typeof import("./evm-storage-ops.js"),
  typeof import("./evm-frame.js"),
  typeof import("./interpreter-loop.js"),
];

const INSTALLER_FILES = [
  "./evm-fast-paths.js",
  "./evm-word-ops.js",
  "./evm-stack-ops.js",
  "./evm-memory-gas.js",
  "./evm-storage-ops.js",
  "./evm-frame.js",
  "./interpreter-loop.js",
];

/** The installers' modules: the worker's own (`copy` undefined), or copies of their own under `?copy=<copy>`. */
async function installerModules(copy?: string): Promise<Modules> {
  const suffix = copy === undefined ? "" : `?copy=${copy}`;
  const modules = await Promise.all(
    INSTALLER_FILES.map((file) => {
      const specifier = `${file}${suffix}`;
      return import(/* @vite-ignore */ specifier) as Promise<unknown>;
    }),
  );
  return modules as unknown as Modules;
}

/** Every installer's answer (the library's functions it replaced) from one copy of the modules. */
async function installAll([fastPaths, wordOps, stackOps, memoryGas, storageOps, frame, loop]: Modules) {
  await loop.installSyncInterpreterLoop();
  return {
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

describe("library originals", () => {
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
    const interpreterUrl = new URL("./interpreter.js", import.meta.resolve("@ethereumjs/evm")).href;
    const interpreter = (await import(/* @vite-ignore */ interpreterUrl)) as {
      Interpreter: { prototype: { _getValidJumpDestinations: unknown; run: unknown } };
    };
    const proto = interpreter.Interpreter.prototype;

    await installEngineFastPaths();
    const worker = await installerModules();
    const first = await installAll(worker);
    const firstReplacement = proto._getValidJumpDestinations;
    const firstRun = proto.run;
    expect(first.library.jumpAnalysis).toBeDefined();
    expect(first.library.jumpAnalysis).not.toBe(firstReplacement);

    const copies = await installerModules("second");
    expect(copies[0]).not.toBe(worker[0]);
    expect(copies[0].installJumpAnalysisCache).not.toBe(worker[0].installJumpAnalysisCache);
    const second = await installAll(copies);
    expect(second.library.jumpAnalysis).toBe(first.library.jumpAnalysis);
    expect(second.library.wordOps!.mstore).toBe(first.library.wordOps!.mstore);
    expect(second.library.frame!._executeCall).toBe(first.library.frame!._executeCall);
    expect(second.library).toEqual(first.library);
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
