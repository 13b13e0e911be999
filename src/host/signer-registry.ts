/**
 * Onchain signer validity: `TEEProverRegistry.isValidSigner(address)` read through viem on the L1
 * execution RPC (docs/protocol.md "Multi-enclave routing").
 */
import { type Address, bytesToHex, createPublicClient, http, type PublicClient } from "viem";
import { teeProverRegistryAbi } from "../../contracts/index.js";

export interface SignerRegistry {
  /** Where the registry lives, for logs and messages. */
  readonly description: string;
  /** True when `signer` (20 bytes) is a registered signer of the active image hash. Throws when unreachable. */
  isValidSigner(signer: Uint8Array): Promise<boolean>;
}

export interface ViemSignerRegistryOptions {
  readonly l1RpcUrl: string;
  readonly registryAddress: Address;
  /** Timeout of one RPC call (default 10 s). */
  readonly timeoutMs?: number;
}

export class ViemSignerRegistry implements SignerRegistry {
  readonly description: string;
  private readonly client: PublicClient;

  constructor(private readonly options: ViemSignerRegistryOptions) {
    this.description = `TEEProverRegistry ${options.registryAddress}`;
    this.client = createPublicClient({
      transport: http(options.l1RpcUrl, { timeout: options.timeoutMs ?? 10_000, retryCount: 0 }),
    });
  }

  isValidSigner(signer: Uint8Array): Promise<boolean> {
    return this.client.readContract({
      address: this.options.registryAddress,
      abi: teeProverRegistryAbi,
      functionName: "isValidSigner",
      args: [bytesToHex(signer)],
    });
  }
}
