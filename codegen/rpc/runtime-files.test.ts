import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CodegenError } from "../errors.js";
import { ERROR_ROOT_FROM_GENERATED } from "../files.js";
import { checkSelfContained, moduleSpecifiers } from "./runtime-files.js";

const GENERATED = fileURLToPath(new URL("../../generated/", import.meta.url));

describe("the generated code is self-contained", () => {
  it("reads the module specifiers of imports and re-exports, multi-line ones included", () => {
    const source = [
      'import { a } from "./a.js";',
      "import {",
      "  b,",
      "  type C,",
      '} from "../../src/rpc/errors.js";',
      'export * from "./d.js";',
      'export type { E } from "pkg";',
      'const text = "import x from \\"./not-a-module.js\\"";',
    ].join("\n");
    expect(moduleSpecifiers(source)).toEqual(["./a.js", "../../src/rpc/errors.js", "./d.js", "pkg"]);
  });

  it("refuses a runtime file that imports outside its folder", () => {
    const source = 'import { InvalidParamsError } from "../../../src/rpc/errors.js";\nexport const x = 1;\n';
    let caught: unknown;
    try {
      checkSelfContained("method-runtime.ts", source);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CodegenError);
    expect((caught as CodegenError).kind).toBe("runtime-not-self-contained");
    expect((caught as CodegenError).details).toEqual({
      file: "method-runtime.ts",
      imports: ["../../../src/rpc/errors.js"],
    });
    expect(() => checkSelfContained("wire.ts", 'import { x } from "./rpc-errors.js";\n')).not.toThrow();
    // The one module outside generated/ its code may import: the error root every error class extends.
    expect(() =>
      checkSelfContained("rpc-errors.ts", 'import { SuiteError } from "../../../src/errors/index.js";\n'),
    ).not.toThrow();
  });

  it("every file under generated/ imports only its own folder's modules, a sibling generated folder's index, the error root, or packages", () => {
    const offenders: string[] = [];
    const folders = readdirSync(GENERATED, { withFileTypes: true }).filter((entry) => entry.isDirectory());
    // One data model: the bincode types reuse the JSON-RPC ones (generated/protocol imports generated/rpc);
    // scripts/layers/packages.ts ranks the folders, so the direction is checked there.
    const siblingIndexes = new Set(folders.map((entry) => `../${entry.name}/index.js`));
    siblingIndexes.add(ERROR_ROOT_FROM_GENERATED);
    for (const dir of folders) {
      for (const file of readdirSync(join(GENERATED, dir.name))) {
        if (!file.endsWith(".ts")) continue;
        const source = readFileSync(join(GENERATED, dir.name, file), "utf8");
        for (const specifier of moduleSpecifiers(source)) {
          if (specifier.startsWith("../") && !siblingIndexes.has(specifier))
            offenders.push(`${dir.name}/${file}: ${specifier}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});
