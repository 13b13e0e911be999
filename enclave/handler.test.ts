/** The Error response text: chosen by the failure's class, never by its message text. */
import { describe, expect, it } from "vitest";
import { UnsupportedChainError } from "../src/proof/onchain/index.js";
import { MissingBootKeyError } from "../src/proof/preimages/index.js";
import { errorMessage } from "./handler.js";
import { EnclaveBusyError } from "./server.js";

describe("errorMessage", () => {
  it("keeps UnsupportedChain's own message and prefixes every other error with its class name", () => {
    expect(errorMessage(new UnsupportedChainError(902n))).toBe(
      "UnsupportedChain: chain id 902 is not in the enclave's config-hash table",
    );
    expect(errorMessage(new MissingBootKeyError(5))).toBe(
      "MissingBootKeyError: missing boot information: local key 5 (L2ChainId)",
    );
    expect(errorMessage(new EnclaveBusyError("busy", { announced: 2, admitted: 1, budget: 2 }))).toBe(
      "EnclaveBusyError: busy",
    );
    // A message that merely starts like the UnsupportedChain refusal (docs/protocol.md "Errors") is not one.
    expect(errorMessage(new Error("UnsupportedChain: spoofed"))).toBe("Error: UnsupportedChain: spoofed");
    expect(errorMessage("a string")).toBe("a string");
  });
});
