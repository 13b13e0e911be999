// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title L1Block (dev chain, Isthmus)
/// @notice Holds the L1 attributes of the current L2 block, set by the L1 attributes deposit at the
///         start of every block. Storage layout and setter calldata match the OP Stack's L1Block
///         (Ecotone and Isthmus formats) so that the execution engine, GasPriceOracle and tools read
///         the same slots as on a real OP chain. Written for this project; the published
///         contracts-bedrock artifacts stop at Ecotone.
contract L1Block {
    /// @notice The depositor account, the only caller of the setters.
    address public constant DEPOSITOR_ACCOUNT = 0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001;

    uint64 public number; // slot 0, offset 0
    uint64 public timestamp; // slot 0, offset 8
    uint256 public basefee; // slot 1
    bytes32 public hash; // slot 2
    uint64 public sequenceNumber; // slot 3, offset 0
    uint32 public blobBaseFeeScalar; // slot 3, offset 8
    uint32 public baseFeeScalar; // slot 3, offset 12
    bytes32 public batcherHash; // slot 4
    uint256 public l1FeeOverhead; // slot 5
    uint256 public l1FeeScalar; // slot 6
    uint256 public blobBaseFee; // slot 7
    uint64 public operatorFeeConstant; // slot 8, offset 0
    uint32 public operatorFeeScalar; // slot 8, offset 8

    error NotDepositor();

    function version() external pure returns (string memory) {
        return "1.6.0+dev-isthmus";
    }

    /// @notice Ecotone format: packed scalars, sequence number, timestamp, number, basefee, blob base
    ///         fee, hash, batcher hash (164 bytes of calldata).
    function setL1BlockValuesEcotone() external {
        if (msg.sender != DEPOSITOR_ACCOUNT) revert NotDepositor();
        assembly {
            sstore(sequenceNumber.slot, shr(128, calldataload(4)))
            sstore(number.slot, shr(128, calldataload(20)))
            sstore(basefee.slot, calldataload(36))
            sstore(blobBaseFee.slot, calldataload(68))
            sstore(hash.slot, calldataload(100))
            sstore(batcherHash.slot, calldataload(132))
        }
    }

    /// @notice Isthmus format: the Ecotone fields followed by operatorFeeScalar (uint32) and
    ///         operatorFeeConstant (uint64) (176 bytes of calldata).
    function setL1BlockValuesIsthmus() external {
        if (msg.sender != DEPOSITOR_ACCOUNT) revert NotDepositor();
        assembly {
            sstore(sequenceNumber.slot, shr(128, calldataload(4)))
            sstore(number.slot, shr(128, calldataload(20)))
            sstore(basefee.slot, calldataload(36))
            sstore(blobBaseFee.slot, calldataload(68))
            sstore(hash.slot, calldataload(100))
            sstore(batcherHash.slot, calldataload(132))
            sstore(operatorFeeConstant.slot, shr(160, calldataload(164)))
        }
    }
}
