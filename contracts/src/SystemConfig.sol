// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title SystemConfig
/// @notice The devnet's L1 system config: the L2 parameters derivation reads from L1. Every change emits exactly
/// the OP Stack `ConfigUpdate(uint256 indexed version, UpdateType indexed updateType, bytes data)` event with the
/// data encoding of the OP Stack SystemConfig (specs/protocol/system-config.md, holocene/system-config.md,
/// isthmus/configurability.md, jovian/system-config.md), so that a rollup node applies it. The constructor sets the
/// initial values and, as the OP Stack SystemConfig's `initialize`, emits the batcher, fee scalar, gas limit and
/// unsafe block signer updates; the later parameters (EIP-1559, operator fee, min base fee, DA footprint) start
/// unset (0) and are set and announced by the constructor only when given non-zero.
/// @dev Not included: proxies and upgrades, the resource config (its defaults give the minimum gas limit),
/// custom gas tokens, pausing and feature flags.
contract SystemConfig {
    /// @notice The kinds of ConfigUpdate; the numbering is the OP Stack's.
    enum UpdateType {
        BATCHER,
        FEE_SCALARS,
        GAS_LIMIT,
        UNSAFE_BLOCK_SIGNER,
        EIP_1559_PARAMS,
        OPERATOR_FEE_PARAMS,
        MIN_BASE_FEE,
        DA_FOOTPRINT_GAS_SCALAR
    }

    /// @notice The initial configuration (constructor argument).
    struct InitialConfig {
        address owner;
        bytes32 batcherHash;
        uint32 basefeeScalar;
        uint32 blobbasefeeScalar;
        uint64 gasLimit;
        address unsafeBlockSigner;
        uint32 eip1559Denominator;
        uint32 eip1559Elasticity;
        uint32 operatorFeeScalar;
        uint64 operatorFeeConstant;
        uint64 minBaseFee;
        uint16 daFootprintGasScalar;
        address batchInbox;
        address optimismPortal;
    }

    /// @notice Version of the ConfigUpdate event's data.
    uint256 public constant VERSION = 0;
    /// @notice The lowest L2 gas limit accepted: the OP Stack resource config's defaults (20,000,000 resource limit
    /// plus 1,000,000 system transaction gas).
    uint64 public constant MINIMUM_GAS_LIMIT = 21_000_000;
    /// @notice The highest L2 gas limit accepted (the OP Stack SystemConfig's MAX_GAS_LIMIT).
    uint64 public constant MAXIMUM_GAS_LIMIT = 500_000_000;

    address public owner;
    /// @notice The batcher's address, left-padded to 32 bytes (only batcher transactions from it count).
    bytes32 public batcherHash;
    /// @notice Legacy (pre-Ecotone) fee overhead: always 0 here.
    uint256 public overhead;
    /// @notice The Ecotone scalar word: version 1, blob base fee scalar in bytes 24..28, base fee scalar in 28..32.
    uint256 public scalar;
    uint32 public basefeeScalar;
    uint32 public blobbasefeeScalar;
    uint64 public gasLimit;
    address public unsafeBlockSigner;
    uint32 public eip1559Denominator;
    uint32 public eip1559Elasticity;
    uint32 public operatorFeeScalar;
    uint64 public operatorFeeConstant;
    uint64 public minBaseFee;
    uint16 public daFootprintGasScalar;
    /// @notice The address batches are posted to (an account without code).
    address public batchInbox;
    /// @notice The deposit contract of this chain.
    address public optimismPortal;
    /// @notice The L1 block this contract was deployed in (derivation's system config starts there).
    uint256 public startBlock;

    /// @notice Emitted for every change of the L2 system config.
    event ConfigUpdate(uint256 indexed version, UpdateType indexed updateType, bytes data);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    error NotOwner(address caller);
    error ZeroAddress();
    error GasLimitOutOfRange(uint64 gasLimit, uint64 minimum, uint64 maximum);
    /// @notice The EIP-1559 denominator and elasticity must both be at least 1.
    error InvalidEip1559Params(uint32 denominator, uint32 elasticity);

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        _;
    }

    constructor(InitialConfig memory config) {
        if (config.owner == address(0)) revert ZeroAddress();
        owner = config.owner;
        batchInbox = config.batchInbox;
        optimismPortal = config.optimismPortal;
        startBlock = block.number;
        emit OwnershipTransferred(address(0), config.owner);
        _setBatcherHash(config.batcherHash);
        _setGasConfigEcotone(config.basefeeScalar, config.blobbasefeeScalar);
        _setGasLimit(config.gasLimit);
        _setUnsafeBlockSigner(config.unsafeBlockSigner);
        // Zero means unset (the chain's defaults) for the later parameters: set and announced only when given.
        if (config.eip1559Denominator != 0 || config.eip1559Elasticity != 0) {
            _setEIP1559Params(config.eip1559Denominator, config.eip1559Elasticity);
        }
        if (config.operatorFeeScalar != 0 || config.operatorFeeConstant != 0) {
            _setOperatorFeeScalars(config.operatorFeeScalar, config.operatorFeeConstant);
        }
        if (config.minBaseFee != 0) _setMinBaseFee(config.minBaseFee);
        if (config.daFootprintGasScalar != 0) _setDAFootprintGasScalar(config.daFootprintGasScalar);
    }

    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert ZeroAddress();
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    /// @notice The batcher's address (the low 20 bytes of batcherHash).
    function batcher() external view returns (address) {
        return address(uint160(uint256(batcherHash)));
    }

    function setBatcherHash(bytes32 newBatcherHash) external onlyOwner {
        _setBatcherHash(newBatcherHash);
    }

    function setGasConfigEcotone(uint32 newBasefeeScalar, uint32 newBlobbasefeeScalar) external onlyOwner {
        _setGasConfigEcotone(newBasefeeScalar, newBlobbasefeeScalar);
    }

    function setGasLimit(uint64 newGasLimit) external onlyOwner {
        _setGasLimit(newGasLimit);
    }

    function setUnsafeBlockSigner(address newUnsafeBlockSigner) external onlyOwner {
        _setUnsafeBlockSigner(newUnsafeBlockSigner);
    }

    function setEIP1559Params(uint32 denominator, uint32 elasticity) external onlyOwner {
        _setEIP1559Params(denominator, elasticity);
    }

    function setOperatorFeeScalars(uint32 newOperatorFeeScalar, uint64 newOperatorFeeConstant) external onlyOwner {
        _setOperatorFeeScalars(newOperatorFeeScalar, newOperatorFeeConstant);
    }

    function setMinBaseFee(uint64 newMinBaseFee) external onlyOwner {
        _setMinBaseFee(newMinBaseFee);
    }

    function setDAFootprintGasScalar(uint16 newDaFootprintGasScalar) external onlyOwner {
        _setDAFootprintGasScalar(newDaFootprintGasScalar);
    }

    /// @dev data: abi.encode(bytes32 batcherHash).
    function _setBatcherHash(bytes32 newBatcherHash) private {
        batcherHash = newBatcherHash;
        emit ConfigUpdate(VERSION, UpdateType.BATCHER, abi.encode(newBatcherHash));
    }

    /// @dev data: abi.encode(overhead, scalar) with scalar = 0x01 << 248 | blobbasefeeScalar << 32 | basefeeScalar.
    function _setGasConfigEcotone(uint32 newBasefeeScalar, uint32 newBlobbasefeeScalar) private {
        basefeeScalar = newBasefeeScalar;
        blobbasefeeScalar = newBlobbasefeeScalar;
        scalar = (uint256(0x01) << 248) | (uint256(newBlobbasefeeScalar) << 32) | uint256(newBasefeeScalar);
        emit ConfigUpdate(VERSION, UpdateType.FEE_SCALARS, abi.encode(overhead, scalar));
    }

    /// @dev data: abi.encode(uint64 gasLimit).
    function _setGasLimit(uint64 newGasLimit) private {
        if (newGasLimit < MINIMUM_GAS_LIMIT || newGasLimit > MAXIMUM_GAS_LIMIT) {
            revert GasLimitOutOfRange(newGasLimit, MINIMUM_GAS_LIMIT, MAXIMUM_GAS_LIMIT);
        }
        gasLimit = newGasLimit;
        emit ConfigUpdate(VERSION, UpdateType.GAS_LIMIT, abi.encode(newGasLimit));
    }

    /// @dev data: abi.encode(address unsafeBlockSigner).
    function _setUnsafeBlockSigner(address newUnsafeBlockSigner) private {
        unsafeBlockSigner = newUnsafeBlockSigner;
        emit ConfigUpdate(VERSION, UpdateType.UNSAFE_BLOCK_SIGNER, abi.encode(newUnsafeBlockSigner));
    }

    /// @dev data: abi.encode(uint256(denominator) << 32 | elasticity).
    function _setEIP1559Params(uint32 denominator, uint32 elasticity) private {
        if (denominator < 1 || elasticity < 1) revert InvalidEip1559Params(denominator, elasticity);
        eip1559Denominator = denominator;
        eip1559Elasticity = elasticity;
        emit ConfigUpdate(VERSION, UpdateType.EIP_1559_PARAMS, abi.encode((uint256(denominator) << 32) | elasticity));
    }

    /// @dev data: abi.encode(uint256(scalar) << 64 | constant).
    function _setOperatorFeeScalars(uint32 newOperatorFeeScalar, uint64 newOperatorFeeConstant) private {
        operatorFeeScalar = newOperatorFeeScalar;
        operatorFeeConstant = newOperatorFeeConstant;
        emit ConfigUpdate(
            VERSION,
            UpdateType.OPERATOR_FEE_PARAMS,
            abi.encode((uint256(newOperatorFeeScalar) << 64) | newOperatorFeeConstant)
        );
    }

    /// @dev data: abi.encode(uint64 minBaseFee).
    function _setMinBaseFee(uint64 newMinBaseFee) private {
        minBaseFee = newMinBaseFee;
        emit ConfigUpdate(VERSION, UpdateType.MIN_BASE_FEE, abi.encode(newMinBaseFee));
    }

    /// @dev data: abi.encode(uint16 daFootprintGasScalar).
    function _setDAFootprintGasScalar(uint16 newDaFootprintGasScalar) private {
        daFootprintGasScalar = newDaFootprintGasScalar;
        emit ConfigUpdate(VERSION, UpdateType.DA_FOOTPRINT_GAS_SCALAR, abi.encode(newDaFootprintGasScalar));
    }
}
