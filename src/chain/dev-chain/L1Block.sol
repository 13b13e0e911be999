// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title L1Block (dev chain, Isthmus and Jovian)
/// @notice Holds the L1 attributes of the current L2 block, set by the L1 attributes deposit at the
///         start of every block. Storage layout and setter calldata match the OP Stack's L1Block
///         (Ecotone, Isthmus and Jovian formats) so that the execution engine, GasPriceOracle and tools read
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
    uint16 public daFootprintGasScalar; // slot 8, offset 12 (Jovian)

    error NotDepositor();

    function version() external pure returns (string memory) {
        return "1.7.0+dev-jovian";
    }

    /// @notice Ecotone format: packed scalars, sequence number, timestamp, number, basefee, blob base
    ///         fee, hash, batcher hash (164 bytes of calldata).
    function setL1BlockValuesEcotone() external {
        _setEcotoneValues();
    }

    /// @dev The Ecotone fields every format starts with (calldata bytes 4..164), after the caller check.
    function _setEcotoneValues() private {
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
        _setEcotoneValues();
        assembly {
            sstore(operatorFeeConstant.slot, shr(160, calldataload(164)))
        }
    }

    /// @notice Jovian format: the Isthmus fields followed by daFootprintGasScalar (uint16) (178 bytes of
    ///         calldata). Slot 8 holds operatorFeeConstant (offset 0), operatorFeeScalar (offset 8) and
    ///         daFootprintGasScalar (offset 12), where the execution engine reads them.
    function setL1BlockValuesJovian() external {
        _setEcotoneValues();
        assembly {
            // calldata 164..178: operatorFeeScalar (4) | operatorFeeConstant (8) | daFootprintGasScalar (2)
            let w := calldataload(164)
            let feeScalar := shr(224, w)
            let feeConstant := and(shr(160, w), 0xffffffffffffffff)
            let daScalar := and(shr(144, w), 0xffff)
            sstore(operatorFeeConstant.slot, or(or(feeConstant, shl(64, feeScalar)), shl(96, daScalar)))
        }
    }
}
