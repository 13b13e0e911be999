import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { diffGenerated } from "./files.js";
import { generateAll } from "./generate.js";

describe("generated/", () => {
  it("is exactly what `npm run codegen` produces from spec/", async () => {
    const outDir = fileURLToPath(new URL("../generated/", import.meta.url));
    const problems = await diffGenerated(outDir, await generateAll());
    expect(problems, "run `npm run codegen` and commit generated/").toEqual([]);
  }, 120_000);
});
