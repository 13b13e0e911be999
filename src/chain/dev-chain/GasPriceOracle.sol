// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title GasPriceOracle (dev chain, Isthmus and Jovian)
/// @notice The Isthmus and Jovian additions of the OP GasPriceOracle (operator fee, isIsthmus,
///         isJovian) in front of the
///         published Fjord implementation, which serves every other function (L1 fee, scalars,
///         flags) through delegatecall, so it reads and writes this contract's storage as behind a
///         proxy. Written for this project; contracts-bedrock 0.17.3 stops at Fjord.
contract GasPriceOracle {
    /// @notice Where the Fjord implementation is deployed in the dev genesis.
    address public constant FJORD_IMPLEMENTATION = 0xc0d3C0d3C0d3c0D3C0D3C0d3C0d3C0D3C0D3000f;
    /// @notice The L1Block predeploy.
    address public constant L1_BLOCK = 0x4200000000000000000000000000000000000015;

    // Slot 0 as in the OP GasPriceOracle: isEcotone, isFjord (read by the Fjord implementation),
    // isIsthmus, isJovian; set in the dev genesis from the chain's forks.
    bool private isEcotone_;
    bool private isFjord_;
    bool public isIsthmus;
    bool public isJovian;

    /// @notice Operator fee of a transaction using `_gasUsed` gas: Isthmus
    ///         gasUsed * operatorFeeScalar / 1e6 + operatorFeeConstant; Jovian
    ///         gasUsed * operatorFeeScalar * 100 + operatorFeeConstant.
    function getOperatorFee(uint256 _gasUsed) external view returns (uint256) {
        (bool okScalar, bytes memory scalar) = L1_BLOCK.staticcall(abi.encodeWithSignature("operatorFeeScalar()"));
        (bool okConstant, bytes memory constant_) = L1_BLOCK.staticcall(abi.encodeWithSignature("operatorFeeConstant()"));
        require(okScalar && okConstant, "GasPriceOracle: L1Block has no operator fee");
        if (isJovian) return _gasUsed * abi.decode(scalar, (uint32)) * 100 + abi.decode(constant_, (uint64));
        return (_gasUsed * abi.decode(scalar, (uint32))) / 1e6 + abi.decode(constant_, (uint64));
    }

    fallback() external {
        address impl = FJORD_IMPLEMENTATION;
        assembly {
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), impl, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            if iszero(ok) { revert(0, returndatasize()) }
            return(0, returndatasize())
        }
    }
}
