import { type Abi, type AbiEvent, type AbiFunction, toEventSelector, toFunctionSelector } from "viem";
import { describe, expect, it } from "vitest";
import { loadArtifact } from "../../contracts/index.js";
import { eip3009TokenAbi as typedAbi } from "./abi.js";

const eip3009TokenAbi: Abi = typedAbi;

describe("eip3009TokenAbi", () => {
  const compiled = loadArtifact("Eip3009Token").abi;

  it("every function exists in the compiled token with the same inputs, outputs and mutability", () => {
    const functions = eip3009TokenAbi.filter((i): i is AbiFunction => i.type === "function");
    expect(functions.length).toBeGreaterThan(10);
    for (const fn of functions) {
      const match = compiled.find(
        (c): c is AbiFunction => c.type === "function" && toFunctionSelector(c) === toFunctionSelector(fn),
      );
      expect(match, fn.name).toBeDefined();
      expect(match?.outputs.map((o) => o.type)).toEqual(fn.outputs.map((o) => o.type));
      expect(match?.stateMutability).toBe(fn.stateMutability);
    }
  });

  it("every event exists in the compiled token with the same indexed fields", () => {
    const events = eip3009TokenAbi.filter((i): i is AbiEvent => i.type === "event");
    expect(events.map((e) => e.name).sort()).toEqual([
      "AuthorizationCanceled",
      "AuthorizationUsed",
      "Transfer",
    ]);
    for (const event of events) {
      const match = compiled.find(
        (c): c is AbiEvent => c.type === "event" && toEventSelector(c) === toEventSelector(event),
      );
      expect(match?.inputs.map((i) => i.indexed ?? false)).toEqual(
        event.inputs.map((i) => i.indexed ?? false),
      );
    }
  });
});
