/**
 * The chain (library, rank 1; docs/chain.md): OP Stack block execution and the data structures around it.
 *
 * Public surface: block building and execution (`BlockBuilder`, `executeBlock`, the transaction processor and EVM
 * setup), headers, receipts, transactions and deposits (codecs and hashes), tries (`FastTrie`, ordered tries, the
 * trie database), the preimage store and keys, output roots (`openOutputRootV0`, `outputRootPreimageV0`,
 * `headerMessagePasserRoot`), fees (OP base fee, L1 fee, blob fee), the L1 info deposit codec, rollup configs
 * (types, JSON, the built-in chains and the superchain registry), the dev chain (config, accounts, genesis,
 * predeploys), hex and keccak helpers, KZG, secp256k1, and the errors (`ChainError` root).
 *
 * Concepts owned: a block's execution, the rollup config, the output root, the L1 info deposit, fees, preimage
 * keys and the hash-keyed store.
 */
export {
  type AccountState,
  type AddTransactionResult,
  BEACON_ROOTS_ADDRESS,
  BlockBuilder,
  BlockBuilderFailedError,
  type BlockBuilderOptions,
  BlockSealedError,
  type BlockSnapshot,
  EMPTY_REQUESTS_HASH,
  HISTORY_STORAGE_ADDRESS,
  L2_TO_L1_MESSAGE_PASSER,
  type PayloadAttributes,
  type SealedBlock,
  SYSTEM_ADDRESS,
} from "./block-builder.js";
export { type AttributeFields, payloadAttributesOfHeader } from "./payload-attributes.js";
export {
  type BlobSchedule,
  CANCUN_BLOB_SCHEDULE,
  PRAGUE_BLOB_SCHEDULE,
  nextExcessBlobGas,
} from "./blob-fee.js";
export { ChainError, type ChainErrorKind, type ChainErrorOptions } from "./errors.js";
export {
  InvalidExtraDataError,
  calcOpBaseFee,
  decodeOpExtraData,
  encodeOpExtraData,
  resolveEip1559Params,
} from "./base-fee.js";
export {
  DEPOSIT_TX_TYPE,
  type DepositTransaction,
  InvalidTransactionEncodingError,
  decodeDepositTransaction,
  depositTransactionHash,
  encodeDepositTransaction,
} from "./deposit-tx.js";
export { commonFor, ethereumHardforkFor, opPrecompiles } from "./evm-setup.js";
export { fastEipLookup, installJumpAnalysisCache } from "./evm-fast-paths.js";
export { installEngineFastPaths } from "./evm-install.js";
export {
  type ExecuteBlockInput,
  InvalidBlockError,
  executeBlock,
  executeBlockWithKeys,
} from "./execute-block.js";
export {
  type ExecutionFixture,
  InvalidFixtureError,
  fixtureStore,
  loadFixture,
  parseFixture,
  parsePayloadAttributes,
} from "./fixture.js";
export { type GenesisAccount, buildGenesisState } from "./genesis.js";
export { FastTrie, type TrieNodeStore } from "./fast-trie.js";
export { PreimageHeaderChain } from "./header-chain.js";
export {
  InvalidHexError,
  bigIntToBytes,
  bigIntToWord,
  bytesEqual,
  bytesToBigInt,
  concatBytes,
  fromHex,
  hexToBigInt,
  padLeft,
  toHex,
  toHexRaw,
} from "./hex.js";
export {
  type BlockHeader,
  EMPTY_OMMERS_HASH,
  EMPTY_TRIE_ROOT,
  decodeHeader,
  encodeHeader,
  headerFromJson,
  headerHash,
  InvalidHeaderError,
} from "./header.js";
export { type L1FeeParams, calldataGas, daFootprint, l1DataFee, operatorFee } from "./l1-fee.js";
export {
  OUTPUT_ROOT_V0_PREIMAGE_BYTES,
  OutputRootPreimageError,
  type OutputRootPreimageFault,
  type OutputRootV0Fields,
  headerMessagePasserRoot,
  openOutputRootV0,
  outputRootPreimageV0,
  outputRootV0,
} from "./output-root.js";
export { orderedTrieRoot } from "./ordered-trie.js";
export { Bytes32Map } from "./bytes32-map.js";
export { ByteArena } from "./byte-arena.js";
export {
  InvalidPreimageKeyError,
  MissingPreimageError,
  PreimageKeyType,
  PreimageMismatchError,
  type PreimageSource,
  PreimageStore,
  describePreimageKey,
  keccak256Key,
  localKey,
  sha256Key,
} from "./preimage-store.js";
export { type Log, type Receipt, type ReceiptDetails, encodeReceipt, logsBloom } from "./receipts.js";
export { BlockStateManager } from "./state.js";
export { PreimageTrieDB } from "./trie-db.js";
export {
  type GenesisSystemConfig,
  InvalidRollupConfigError,
  OpFork,
  type RollupConfig,
  type RollupGenesis,
  activeFork,
  forksActiveFrom,
  isForkActivationBlock,
  isForkActive,
  parseRollupConfig,
} from "./rollup-config.js";
export { type JsonValue, type RollupConfigJson, rollupConfigToJson } from "./rollup-config-json.js";
export { SUPERCHAIN_CHAIN_DATA } from "./chains/superchain.generated.js";
export type { SuperchainChainData } from "./chains/registry.js";
export {
  type BuiltInChain,
  type ChainGenesisFacts,
  UnknownChainError,
  builtInChain,
  builtInChains,
  findBuiltInChain,
  genesisFactsOf,
} from "./chains/chains.js";
export {
  type L1ChainConfig,
  L1_CHAINS,
  blobBaseFee,
  blobBaseFeeUpdateFraction,
  findL1ChainConfig,
} from "./chains/l1-chains.js";
export { type DecodedTransaction, decodeTransaction } from "./transactions.js";
export { type Secp256k1Backend, secp256k1Backend } from "./secp256k1.js";
export { type RejectionReason, TransactionRejectedError, floorDataGas } from "./tx-processor.js";
// The project's dev chain (chain 901): its rollup config, genesis, prefunded accounts, predeploys and the
// synthetic L1 origin every block's L1 attributes deposit carries. Node, prover and enclave build it alike.
export {
  DEV_CHAIN_ID,
  DEV_DEFAULT_ACCOUNT_COUNT,
  DEV_GAS_LIMIT,
  DEV_GENESIS_BASE_FEE,
  DEV_GENESIS_TIME,
  devL1ChainConfig,
  devRollupConfig,
} from "./dev-chain/config.js";
export {
  DEV_ACCOUNT_BALANCE,
  DEV_MNEMONIC,
  type DevAccount,
  devAccounts,
  deriveDevAccount,
} from "./dev-chain/dev-accounts.js";
export {
  type Genesis,
  type GenesisHeaderOptions,
  buildGenesis,
  buildRollupGenesis,
  genesisAccounts,
} from "./dev-chain/genesis.js";
export {
  DEV_FEE_SCALARS,
  type L1Origin,
  devL1Info,
  l1InfoCalldata,
  l1InfoDeposit,
  syntheticL1Origin,
} from "./dev-chain/l1-info.js";
export {
  InvalidL1InfoError,
  L1_BLOCK_ADDRESS,
  L1_INFO_DEPOSITOR,
  L1_INFO_DEPOSIT_GAS,
  L1_INFO_LENGTHS,
  L1_INFO_SELECTORS,
  type L1BlockInfo,
  type L1InfoFormat,
  decodeL1InfoCalldata,
  decodeL1InfoDeposit,
  ecotoneScalars,
  encodeEcotoneScalar,
  encodeL1InfoCalldata,
  encodeL1InfoDeposit,
  isValidEcotoneScalar,
  l1InfoDepositTransaction,
  l1InfoFormatOf,
  l1InfoOfFirstTransaction,
  l1InfoSourceHash,
  upgradeDepositSourceHash,
  userDepositSourceHash,
} from "./l1-info.js";
export {
  BEACON_ROOTS_CODE,
  type GenesisAccount as DevGenesisAccount,
  HISTORY_STORAGE_CODE,
  PREDEPLOY,
  PredeployArtifactError,
  predeployAccounts,
} from "./dev-chain/predeploys.js";
export { initKeccak, keccak256 } from "./keccak.js";
export {
  type EthKzg,
  KZG_BACKEND_ENV,
  KzgBackendError,
  type KzgBackendChoice,
  type KzgBackendName,
  KzgInputSizeError,
  ethKzgBackendChoice,
  kzgBackendSetting,
  loadEthKzg,
  loadEthKzgBackend,
} from "./kzg.js";
