/** The proof program and request handler in-process, with the real signer, store and security module. */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Response } from "../generated/protocol/index.js";
import { handleRequest, type RequestHandlerDeps } from "./handler.js";
import { LocalSecurityModule } from "./local-security-module.js";
import { findBuiltInChain } from "../src/chain/index.js";
import { computeConfigHash, configHashFor, UnsupportedChainError } from "../src/proof/onchain/index.js";
import { preimageKeyOf } from "../src/proof/preimages/index.js";
import { developmentChain, enclaveChains } from "./prove.js";
import { EnclaveSigner } from "./signer.js";
import { bootPreimages, honestWitness, keccakPreimage, sha256Preimage, text } from "./test/fixtures.js";

const securityModule = await LocalSecurityModule.open();

function deps(): RequestHandlerDeps & { signed: Uint8Array[] } {
  const signer = EnclaveSigner.generate((n) => randomBytes(n));
  const signed: Uint8Array[] = [];
  return {
    signed,
    identity: { publicKey: signer.publicKey },
    securityModule,
    program: {
      signer: { signJournal: (journal) => (signed.push(journal), signer.signJournal(journal)) },
      teeImageHash: new Uint8Array(32),
      executor: enclaveChains().executor,
    },
  };
}

function errorOf(response: Response): string {
  if (response.kind !== "Error") throw new Error(`expected an Error response, got ${response.kind}`);
  return response.message;
}

describe("preimage keys", () => {
  it("a key is the type byte then the 31 data bytes", () => {
    const key = preimageKeyOf("Sha256", new Uint8Array(31).fill(9));
    expect(key[0]).toBe(4);
    expect(key.subarray(1)).toEqual(new Uint8Array(31).fill(9));
  });
});

describe("Prove refusals sign nothing", () => {
  const prove = async (preimages: ReturnType<typeof bootPreimages>) => {
    const d = deps();
    const response = await handleRequest(d, { kind: "Prove", preimages });
    expect(d.signed).toHaveLength(0);
    return errorOf(response);
  };

  it("a tampered keccak256 preimage", async () => {
    const message = await prove([
      ...bootPreimages(),
      ...honestWitness(),
      keccakPreimage(text("abc"), text("abd")),
    ]);
    expect(message).toMatch(
      /PreimageMismatchError: preimage for key keccak256:0x02.* does not match its content/,
    );
  });

  it("a tampered sha256 preimage", async () => {
    const message = await prove([sha256Preimage(text("abc"), text("abd")), ...bootPreimages()]);
    expect(message).toMatch(/PreimageMismatchError: preimage for key sha256:0x04/);
  });

  it("an unknown chain id", async () => {
    expect(await prove([...bootPreimages({ chainId: 42n }), ...honestWitness()])).toBe(
      "UnsupportedChain: chain id 42 is not in the enclave's config-hash table",
    );
  });

  it("the dev chain (901) is in the table: its Prove passes the config hash and reaches the program", async () => {
    // The program's prologue opens the agreed output root first; the fixture carries no preimage for it.
    expect(await prove([...bootPreimages({ chainId: 901n }), ...honestWitness()])).toMatch(
      /^MissingWitnessError: missing preimage keccak256:0x02a0a0.* \(agreed output root\): the proof is refused$/,
    );
  });

  it("a missing boot key", async () => {
    expect(await prove([...bootPreimages({}, [1]), ...honestWitness()])).toBe(
      "MissingBootKeyError: missing boot information: local key 1 (L1Head)",
    );
    expect(await prove([...bootPreimages({}, [8])])).toMatch(/local key 8 \(Proposer\)/);
  });

  it("keys the enclave never takes from the host: precompile, global generic, a local key that is no boot index", async () => {
    const data = (fill: number) => new Uint8Array(31).fill(fill);
    expect(
      await prove([...bootPreimages(), [preimageKeyOf("Precompile", data(1)), new Uint8Array([1])]]),
    ).toMatch(/^RefusedPreimageKeyError: preimage key precompile:0x06.* refused: precompile results/);
    expect(
      await prove([...bootPreimages(), [preimageKeyOf("GlobalGeneric", data(2)), new Uint8Array([1])]]),
    ).toMatch(
      /^RefusedPreimageKeyError: preimage key global-generic:0x03.* refused: global generic preimages/,
    );
    const unknownLocal = new Uint8Array(31);
    unknownLocal[30] = 12;
    expect(
      await prove([...bootPreimages(), [preimageKeyOf("Local", unknownLocal), new Uint8Array(32)]]),
    ).toMatch(
      /^RefusedPreimageKeyError: preimage key local:0x01.*0c refused: a local key that is not a boot information index/,
    );
  });

  it("a zero interval", async () => {
    expect(await prove(bootPreimages({ interval: 0n }))).toMatch(/interval must be at least 1/);
  });

  it("a well-formed request without a witness reaches the program, which refuses the missing preimage", async () => {
    expect(await prove([...bootPreimages(), ...honestWitness()])).toMatch(
      /^MissingWitnessError: missing preimage keccak256:0x02.* \(agreed output root\): the proof is refused$/,
    );
  });
});

describe("the enclave's chains", () => {
  const base = findBuiltInChain(8453n)!.rollupConfig;

  it("built in: the table's config hash and the built-in rollup config; unknown chains are refused", () => {
    const chains = enclaveChains();
    expect(chains.configHash(8453n)).toEqual(configHashFor(8453n));
    expect(chains.lookup(8453n)?.rollupConfig).toBe(base);
    expect(chains.lookup(901n)?.rollupConfig.l2ChainId).toBe(901n);
    expect(chains.lookup(42n)).toBeUndefined();
    expect(() => chains.configHash(42n)).toThrow(UnsupportedChainError);
  });

  it("a development config replaces its chain id's row, config hash computed from its genesis", () => {
    // A chain 901 whose genesis differs from the standalone dev chain's (here: Base's genesis facts).
    const development = developmentChain({ ...base, l2ChainId: 901n });
    expect(development.configHash).toEqual(
      computeConfigHash({ ...findBuiltInChain(8453n)!.genesisFacts, chainId: 901n }),
    );
    expect(development.configHash).not.toEqual(configHashFor(901n));
    const chains = enclaveChains(development);
    expect(chains.configHash(901n)).toEqual(development.configHash);
    expect(chains.lookup(901n)?.rollupConfig).toBe(development.rollupConfig);
    expect(chains.configHash(8453n)).toEqual(configHashFor(8453n));
    expect(chains.lookup(42n)).toBeUndefined();
  });

  it("a Prove for the development chain runs the program with its config (refused here: no witness)", async () => {
    const development = developmentChain({ ...base, l2ChainId: 901n });
    const chains = enclaveChains(development);
    const d = deps();
    const response = await handleRequest(
      { ...d, program: { ...d.program, executor: chains.executor, configHash: chains.configHash } },
      { kind: "Prove", preimages: [...bootPreimages({ chainId: 901n }), ...honestWitness()] },
    );
    expect(errorOf(response)).toMatch(/^MissingWitnessError: .*agreed output root/);
    expect(d.signed).toHaveLength(0);
  });
});

describe("identity requests", () => {
  it("SignerPublicKey answers the 65-byte key; attestation embeds it", async () => {
    const d = deps();
    const pk = await handleRequest(d, { kind: "SignerPublicKey" });
    expect(pk).toEqual({ kind: "SignerPublicKey", public_key: d.identity.publicKey });
    const att = await handleRequest(d, {
      kind: "SignerAttestation",
      user_data: new Uint8Array(513),
      nonce: null,
    });
    expect(errorOf(att)).toMatch(/AttestationInputTooLargeError: user_data is 513 bytes/);
  });

  it("TeeImageHash answers the image hash the program signs into its journals", async () => {
    const d = deps();
    const image = new Uint8Array(32).fill(0x1e);
    const answer = await handleRequest(
      { ...d, program: { ...d.program, teeImageHash: image } },
      { kind: "TeeImageHash" },
    );
    expect(answer).toEqual({ kind: "TeeImageHash", image_hash: image });
  });
});
