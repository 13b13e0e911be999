/** The cause chain: `SuiteError.walk` and `walkErrors`, for the project's errors and any other. */
import { describe, expect, it } from "vitest";
import { SuiteError, walkErrors } from "./index.js";

class TestError extends SuiteError<"test"> {
  readonly package = "test";
  constructor(message: string, cause?: unknown) {
    super(message, { kind: "test", cause });
  }
}

class OtherError extends Error {}

describe("walking an error's causes", () => {
  const root = new OtherError("socket closed");
  const middle = new TestError("frame unreadable", root);
  const top = new TestError("proof failed", middle);

  it("finds the first error a predicate accepts, this one first", () => {
    expect(top.walk((e) => e instanceof OtherError)).toBe(root);
    expect(top.walk((e) => e instanceof TestError)).toBe(top);
    expect(top.walk((e) => e instanceof TestError && e.message.startsWith("frame"))).toBe(middle);
    expect(top.walk((e) => e instanceof RangeError)).toBeUndefined();
  });

  it("without a predicate gives the deepest cause", () => {
    expect(top.walk()).toBe(root);
    expect(new TestError("alone").walk()).toBeInstanceOf(TestError);
    expect(walkErrors(new Error("plain", { cause: "a string" }))).toBe("a string");
    expect(walkErrors("not an error")).toBe("not an error");
  });

  it("stops on a chain that loops back", () => {
    const a = new Error("a");
    const b = new Error("b", { cause: a });
    Object.defineProperty(a, "cause", { value: b });
    expect(walkErrors(b)).toBe(a);
    expect(walkErrors(b, (e) => e instanceof RangeError)).toBeUndefined();
  });
});
