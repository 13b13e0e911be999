import { createPublicClient, createWalletClient, defineChain, pad } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { DevChain } from "../test/evm/dev-chain.js";
import { EvmHarness } from "../test/evm/harness.js";
import { loadArtifact, teeProverRegistryAbi } from "./artifacts.js";
import { deployArtifact } from "./deploy.js";

const deployer = privateKeyToAccount("0x8000000000000000000000000000000000000000000000000000000000000008");
const chain = defineChain({
  id: 901,
  name: "harness",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: ["http://127.0.0.1:0"] } },
});

describe("deployArtifact", () => {
  it("deploys the token and the registry through viem clients; the code is the committed runtime bytecode", async () => {
    const devChain = new DevChain(await EvmHarness.create({ chainId: 901n }));
    const publicClient = createPublicClient({ chain, transport: devChain.transport(), pollingInterval: 10 });
    const walletClient = createWalletClient({ account: deployer, chain, transport: devChain.transport() });
    const clients = { publicClient, walletClient };

    const token = await deployArtifact(clients, "Eip3009Token", ["Dev USD", "DUSD", deployer.address], {
      pollingIntervalMs: 10,
    });
    expect(await publicClient.getCode({ address: token.address })).toBe(
      loadArtifact("Eip3009Token").deployedBytecode,
    );
    const registry = await deployArtifact(
      clients,
      "TEEProverRegistry",
      [deployer.address, pad("0x00", { size: 32 })],
      {
        pollingIntervalMs: 10,
      },
    );
    expect(registry.address).not.toBe(token.address);
    const owner: `0x${string}` = await publicClient.readContract({
      address: registry.address,
      abi: teeProverRegistryAbi,
      functionName: "owner",
    });
    expect(owner).toBe(deployer.address);
    const valid: boolean = await publicClient.readContract({
      address: registry.address,
      abi: teeProverRegistryAbi,
      functionName: "isValidSigner",
      args: [deployer.address],
    });
    expect(valid).toBe(false);
  });
});
