/**
 * Block hashes for BLOCKHASH, from the parent header backwards through header preimages
 * (keccak256(header RLP) -> header RLP). A missing header is a MissingPreimageError.
 */
import type { EVMMockBlockchainInterface } from "@ethereumjs/evm";
import { decodeHeader } from "./header.js";
import { type PreimageSource, keccak256Key } from "./preimage-store.js";

type MockBlock = { hash(): Uint8Array };

export class PreimageHeaderChain implements EVMMockBlockchainInterface {
  private readonly hashes = new Map<bigint, Uint8Array>();
  private oldestNumber: bigint;

  constructor(
    private readonly source: PreimageSource,
    private readonly parentNumber: bigint,
    parentHash: Uint8Array,
    private readonly grandparentHash: Uint8Array,
  ) {
    this.hashes.set(parentNumber, parentHash);
    this.oldestNumber = parentNumber;
  }

  /** Hash of block `number` (must not be newer than the parent). */
  hashOf(number: bigint): Uint8Array {
    const known = this.hashes.get(number);
    if (known !== undefined) return known;
    if (number > this.parentNumber || number < 0n) throw new RangeError(`block ${number} is not an ancestor`);
    while (this.oldestNumber > number) {
      const parentOfOldest =
        this.oldestNumber === this.parentNumber
          ? this.grandparentHash
          : decodeHeader(this.source.get(keccak256Key(this.hashes.get(this.oldestNumber)!))).parentHash;
      this.oldestNumber -= 1n;
      this.hashes.set(this.oldestNumber, parentOfOldest);
    }
    return this.hashes.get(number)!;
  }

  async getBlock(blockId: number): Promise<MockBlock> {
    const hash = this.hashOf(BigInt(blockId));
    return { hash: () => hash };
  }

  async putBlock(): Promise<void> {}

  shallowCopy(): EVMMockBlockchainInterface {
    return this;
  }
}
