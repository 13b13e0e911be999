import { type Address, getAddress, type Hex, keccak256, pad, toEventSelector } from "viem";
import { beforeEach, describe, expect, it } from "vitest";
import { loadArtifact } from "../../contracts/artifacts.js";
import { type CallOutcome, type DeployedContract, EvmHarness } from "./harness.js";

const OWNER: Address = "0x0000000000000000000000000000000000000a01";
const MANAGER: Address = "0x0000000000000000000000000000000000000a02";
const STRANGER: Address = "0x0000000000000000000000000000000000000a03";
const SIGNER_A: Address = getAddress("0x000000000000000000000000000000000000b00a");
const SIGNER_B: Address = getAddress("0x000000000000000000000000000000000000b00b");

/** keccak256 of a 48-byte PCR0, as the enclave computes its image hash. */
const IMAGE_1 = keccak256(new Uint8Array(48).fill(1));
const IMAGE_2 = keccak256(new Uint8Array(48).fill(2));
const LOCAL_IMAGE: Hex = pad("0x00", { size: 32 });

const artifact = loadArtifact("TEEProverRegistry");

function topic(signature: string): Hex {
  return toEventSelector(signature);
}

function addressTopic(address: Address): Hex {
  return pad(address.toLowerCase() as Hex, { size: 32 });
}

function expectSuccess(outcome: CallOutcome): void {
  expect(outcome.revertReason ?? outcome.exception).toBeUndefined();
}

describe("TEEProverRegistry", () => {
  let registry: DeployedContract;
  const valid = async (signer: Address) => (await registry.read("isValidSigner", [signer])) as boolean;

  beforeEach(async () => {
    const harness = await EvmHarness.create({ chainId: 900n });
    registry = await harness.deploy(artifact, [OWNER, IMAGE_1], { from: STRANGER });
  });

  it("starts with the owner and the active image hash from the constructor", async () => {
    expect(await registry.read("owner")).toBe(OWNER);
    expect(await registry.read("activeImageHash")).toBe(IMAGE_1);
    expect(await valid(SIGNER_A)).toBe(false);
  });

  it("registers a signer of the active image: valid, with an indexed SignerRegistered event", async () => {
    const outcome = await registry.write("registerSigner", [SIGNER_A, IMAGE_1], { from: OWNER });
    expectSuccess(outcome);
    expect(outcome.logs).toEqual([
      {
        address: registry.address,
        topics: [topic("SignerRegistered(address,bytes32)"), addressTopic(SIGNER_A), IMAGE_1],
        data: "0x",
      },
    ]);
    expect(await valid(SIGNER_A)).toBe(true);
    expect(await registry.read("isRegisteredSigner", [SIGNER_A])).toBe(true);
    expect(await registry.read("signerImageHash", [SIGNER_A])).toBe(IMAGE_1);
  });

  it("a signer registered for another image is registered but not valid", async () => {
    expectSuccess(await registry.write("registerSigner", [SIGNER_B, IMAGE_2], { from: OWNER }));
    expect(await registry.read("isRegisteredSigner", [SIGNER_B])).toBe(true);
    expect(await valid(SIGNER_B)).toBe(false);
  });

  it("deregistration makes a signer invalid and emits SignerDeregistered; unknown signers are refused", async () => {
    expectSuccess(await registry.write("registerSigner", [SIGNER_A, IMAGE_1], { from: OWNER }));
    const outcome = await registry.write("deregisterSigner", [SIGNER_A], { from: OWNER });
    expectSuccess(outcome);
    expect(outcome.logs[0]?.topics).toEqual([
      topic("SignerDeregistered(address,bytes32)"),
      addressTopic(SIGNER_A),
      IMAGE_1,
    ]);
    expect(await valid(SIGNER_A)).toBe(false);
    expect(await registry.read("isRegisteredSigner", [SIGNER_A])).toBe(false);
    const again = await registry.write("deregisterSigner", [SIGNER_A], { from: OWNER });
    expect(again.success).toBe(false);
    expect(again.revertReason).toBe(`SignerNotRegistered(${SIGNER_A})`);
  });

  it("image rotation: signers of the old image become invalid, signers of the new one valid", async () => {
    expectSuccess(await registry.write("registerSigner", [SIGNER_A, IMAGE_1], { from: OWNER }));
    expectSuccess(await registry.write("registerSigner", [SIGNER_B, IMAGE_2], { from: OWNER }));
    expect([await valid(SIGNER_A), await valid(SIGNER_B)]).toEqual([true, false]);
    const outcome = await registry.write("setActiveImageHash", [IMAGE_2], { from: OWNER });
    expectSuccess(outcome);
    expect(outcome.logs[0]?.topics).toEqual([
      topic("ActiveImageHashUpdated(bytes32,bytes32)"),
      IMAGE_1,
      IMAGE_2,
    ]);
    expect([await valid(SIGNER_A), await valid(SIGNER_B)]).toEqual([false, true]);
    // Re-registering A for the new image (a re-attested enclave) makes it valid again.
    expectSuccess(await registry.write("registerSigner", [SIGNER_A, IMAGE_2], { from: OWNER }));
    expect(await valid(SIGNER_A)).toBe(true);
  });

  it("the local-mode (zero) image hash works like any other", async () => {
    expectSuccess(await registry.write("setActiveImageHash", [LOCAL_IMAGE], { from: OWNER }));
    expect(await valid(SIGNER_A)).toBe(false);
    expectSuccess(await registry.write("registerSigner", [SIGNER_A, LOCAL_IMAGE], { from: OWNER }));
    expect(await valid(SIGNER_A)).toBe(true);
  });

  it("only the owner rotates images and appoints managers; managers register and deregister", async () => {
    const rotate = await registry.write("setActiveImageHash", [IMAGE_2], { from: STRANGER });
    expect(rotate.revertReason).toBe(`NotOwner(${STRANGER})`);
    const register = await registry.write("registerSigner", [SIGNER_A, IMAGE_1], { from: MANAGER });
    expect(register.revertReason).toBe(`NotRegistrar(${MANAGER})`);

    const appoint = await registry.write("setManager", [MANAGER, true], { from: OWNER });
    expectSuccess(appoint);
    expect(appoint.logs[0]?.topics).toEqual([topic("ManagerUpdated(address,bool)"), addressTopic(MANAGER)]);
    expectSuccess(await registry.write("registerSigner", [SIGNER_A, IMAGE_1], { from: MANAGER }));
    expect(await valid(SIGNER_A)).toBe(true);
    expect((await registry.write("setActiveImageHash", [IMAGE_2], { from: MANAGER })).revertReason).toBe(
      `NotOwner(${MANAGER})`,
    );
    expectSuccess(await registry.write("deregisterSigner", [SIGNER_A], { from: MANAGER }));

    expectSuccess(await registry.write("setManager", [MANAGER, false], { from: OWNER }));
    expect(
      (await registry.write("registerSigner", [SIGNER_A, IMAGE_1], { from: MANAGER })).revertReason,
    ).toBe(`NotRegistrar(${MANAGER})`);
  });

  it("ownership transfer hands over every owner power", async () => {
    expectSuccess(await registry.write("transferOwnership", [STRANGER], { from: OWNER }));
    expect(await registry.read("owner")).toBe(STRANGER);
    expect((await registry.write("registerSigner", [SIGNER_A, IMAGE_1], { from: OWNER })).revertReason).toBe(
      `NotRegistrar(${OWNER})`,
    );
    expectSuccess(await registry.write("registerSigner", [SIGNER_A, IMAGE_1], { from: STRANGER }));
    expect(
      (await registry.write("registerSigner", [pad("0x00", { size: 20 }), IMAGE_1], { from: STRANGER }))
        .revertReason,
    ).toBe("ZeroAddress()");
  });

  it("isValidSigner(address) returns (bool), as the host's registry client expects", () => {
    const fn = artifact.abi.find((i) => i.type === "function" && i.name === "isValidSigner");
    expect(fn).toMatchObject({
      inputs: [{ type: "address" }],
      outputs: [{ type: "bool" }],
      stateMutability: "view",
    });
  });
});
