/** fast-check arbitraries of decoded (internal) values of the generated RPC types, for round-trip tests and the codec benchmark. */
import fc from "fast-check";
import type * as T from "../../generated/rpc/index.js";

export const MAX_UINT256 = (1n << 256n) - 1n;

export const quantity = (): fc.Arbitrary<bigint> =>
  fc.oneof(
    fc.constantFrom(0n, 1n, MAX_UINT256),
    fc.bigInt({ min: 0n, max: MAX_UINT256 }),
    fc.bigInt({ min: 0n, max: 1n << 64n }),
  );
export const quantity64 = (): fc.Arbitrary<bigint> =>
  fc.oneof(fc.constantFrom(0n, (1n << 64n) - 1n), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }));
export const jsonU64 = (): fc.Arbitrary<bigint> =>
  fc.bigInt({ min: 0n, max: BigInt(Number.MAX_SAFE_INTEGER) });
export const bytesOf = (length: number): fc.Arbitrary<Uint8Array> =>
  fc.uint8Array({ minLength: length, maxLength: length });
export const data = (): fc.Arbitrary<Uint8Array> => fc.uint8Array({ maxLength: 96 });
export const hash = (): fc.Arbitrary<Uint8Array> => bytesOf(32);
export const address = (): fc.Arbitrary<Uint8Array> => bytesOf(20);
export const yParity = (): fc.Arbitrary<number> => fc.constantFrom(0, 1);

const location = {
  blockHash: fc.option(hash(), { nil: null }),
  blockNumber: fc.option(quantity64(), { nil: null }),
  transactionIndex: fc.option(fc.bigInt({ min: 0n, max: 10_000n }), { nil: null }),
  hash: hash(),
  from: address(),
};

const accessList = (): fc.Arbitrary<T.AccessListEntry[]> =>
  fc.array(fc.record({ address: address(), storageKeys: fc.array(hash(), { maxLength: 3 }) }), {
    maxLength: 3,
  });

export const legacyTransaction = (): fc.Arbitrary<T.LegacyTransaction> =>
  fc.record(
    {
      type: fc.constant("0x0" as const),
      ...location,
      nonce: quantity64(),
      to: fc.option(address(), { nil: null }),
      gas: quantity(),
      value: quantity(),
      input: data(),
      gasPrice: quantity(),
      chainId: quantity(),
      v: quantity(),
      r: quantity(),
      s: quantity(),
    },
    {
      requiredKeys: [
        "type",
        "blockHash",
        "blockNumber",
        "transactionIndex",
        "hash",
        "from",
        "nonce",
        "to",
        "gas",
        "value",
        "input",
        "gasPrice",
        "v",
        "r",
        "s",
      ],
    },
  );

export const accessListTransaction = (): fc.Arbitrary<T.AccessListTransaction> =>
  fc.record({
    type: fc.constant("0x1" as const),
    ...location,
    nonce: quantity64(),
    to: fc.option(address(), { nil: null }),
    gas: quantity(),
    value: quantity(),
    input: data(),
    gasPrice: quantity(),
    chainId: quantity(),
    accessList: accessList(),
    yParity: yParity(),
    r: quantity(),
    s: quantity(),
  });

export const dynamicFeeTransaction = (): fc.Arbitrary<T.DynamicFeeTransaction> =>
  fc.record({
    type: fc.constant("0x2" as const),
    ...location,
    nonce: quantity64(),
    to: fc.option(address(), { nil: null }),
    gas: quantity(),
    value: quantity(),
    input: data(),
    maxPriorityFeePerGas: quantity(),
    maxFeePerGas: quantity(),
    gasPrice: quantity(),
    chainId: quantity(),
    accessList: accessList(),
    yParity: yParity(),
    v: fc.bigInt({ min: 0n, max: 1n }),
    r: quantity(),
    s: quantity(),
  });

export const setCodeTransaction = (): fc.Arbitrary<T.SetCodeTransaction> =>
  fc.record({
    type: fc.constant("0x4" as const),
    ...location,
    nonce: quantity64(),
    to: address(),
    gas: quantity(),
    value: quantity(),
    input: data(),
    maxPriorityFeePerGas: quantity(),
    maxFeePerGas: quantity(),
    gasPrice: quantity(),
    chainId: quantity(),
    accessList: accessList(),
    authorizationList: fc.array(
      fc.record({
        chainId: quantity(),
        nonce: quantity64(),
        address: address(),
        yParity: yParity(),
        r: quantity(),
        s: quantity(),
      }),
      { maxLength: 2 },
    ),
    yParity: yParity(),
    r: quantity(),
    s: quantity(),
  });

export const depositTransaction = (): fc.Arbitrary<T.DepositTransaction> =>
  fc.record(
    {
      type: fc.constant("0x7e" as const),
      ...location,
      sourceHash: hash(),
      to: fc.option(address(), { nil: null }),
      mint: quantity(),
      value: quantity(),
      gas: quantity64(),
      isSystemTx: fc.constant(true),
      input: data(),
      nonce: quantity64(),
      depositReceiptVersion: fc.constant(1n),
      gasPrice: fc.constant(0n),
      v: fc.constant(0n),
      r: fc.constant(0n),
      s: fc.constant(0n),
      yParity: fc.constant(0),
    },
    {
      requiredKeys: [
        "type",
        "blockHash",
        "blockNumber",
        "transactionIndex",
        "hash",
        "from",
        "sourceHash",
        "to",
        "mint",
        "value",
        "gas",
        "input",
        "nonce",
        "gasPrice",
        "v",
        "r",
        "s",
        "yParity",
      ],
    },
  );

export const transaction = (): fc.Arbitrary<T.Transaction> =>
  fc.oneof(
    legacyTransaction(),
    accessListTransaction(),
    dynamicFeeTransaction(),
    setCodeTransaction(),
    depositTransaction(),
  );

export const block = (transactions: fc.Arbitrary<T.BlockTransactions>): fc.Arbitrary<T.Block> =>
  fc.record(
    {
      number: quantity64(),
      hash: hash(),
      parentHash: hash(),
      nonce: fc.constant(new Uint8Array(8)),
      sha3Uncles: hash(),
      logsBloom: bytesOf(256),
      transactionsRoot: hash(),
      stateRoot: hash(),
      receiptsRoot: hash(),
      miner: address(),
      difficulty: fc.constant(0n),
      mixHash: hash(),
      extraData: data(),
      size: quantity64(),
      gasLimit: quantity64(),
      gasUsed: quantity64(),
      timestamp: quantity64(),
      transactions,
      uncles: fc.constant([]),
      withdrawals: fc.constant([]),
      withdrawalsRoot: hash(),
      baseFeePerGas: quantity(),
      blobGasUsed: quantity64(),
      excessBlobGas: quantity64(),
      parentBeaconBlockRoot: hash(),
      requestsHash: hash(),
    },
    {
      requiredKeys: [
        "number",
        "hash",
        "parentHash",
        "nonce",
        "sha3Uncles",
        "logsBloom",
        "transactionsRoot",
        "stateRoot",
        "receiptsRoot",
        "miner",
        "difficulty",
        "mixHash",
        "extraData",
        "size",
        "gasLimit",
        "gasUsed",
        "timestamp",
        "transactions",
        "uncles",
        "withdrawals",
        "withdrawalsRoot",
        "baseFeePerGas",
        "blobGasUsed",
        "excessBlobGas",
        "parentBeaconBlockRoot",
      ],
    },
  );

export const blockWithHashes = (): fc.Arbitrary<T.Block> => block(fc.array(hash(), { maxLength: 4 }));

/** Full transactions, always including at least one deposit (as the first, like the L1 attributes deposit). */
export const blockWithTransactions = (): fc.Arbitrary<T.Block> =>
  block(
    fc
      .tuple(depositTransaction(), fc.array(transaction(), { maxLength: 4 }))
      .map(([deposit, rest]) => [deposit, ...rest]),
  );

export const proofRequest = (): fc.Arbitrary<T.ProofRequest> =>
  fc.record(
    {
      l1_head: hash(),
      l1_head_number: jsonU64(),
      agreed_l2_head_hash: hash(),
      agreed_l2_output_root: hash(),
      claimed_l2_output_root: hash(),
      claimed_l2_block_number: jsonU64(),
      proposer: address(),
      intermediate_block_interval: fc.bigInt({ min: 1n, max: 10_000n }),
      image_hash: hash(),
    },
    {
      requiredKeys: [
        "l1_head",
        "l1_head_number",
        "agreed_l2_head_hash",
        "agreed_l2_output_root",
        "claimed_l2_output_root",
        "claimed_l2_block_number",
        "proposer",
        "intermediate_block_interval",
      ],
    },
  );

export const proposal = (): fc.Arbitrary<T.Proposal> =>
  fc.record({
    output_root: hash(),
    signature: bytesOf(65),
    l1_origin_hash: hash(),
    l1_origin_number: jsonU64(),
    l2_block_number: jsonU64(),
    prev_output_root: hash(),
    config_hash: hash(),
  });

export const proofResult = (): fc.Arbitrary<T.ProofResult> =>
  fc.record({
    Tee: fc.record({
      aggregate_proposal: proposal(),
      proposals: fc.array(proposal(), { minLength: 1, maxLength: 4 }),
    }),
  });
