// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title Erc1271Wallet
/// @notice A minimal contract account for tests: it accepts, through EIP-1271, exactly the 65-byte
/// ECDSA signatures (r | s | v, v in {27, 28}) its owner key made over the given digest.
contract Erc1271Wallet {
    bytes4 private constant MAGIC_VALUE = 0x1626ba7e;
    bytes4 private constant INVALID_VALUE = 0xffffffff;

    address public immutable owner;

    constructor(address walletOwner) {
        owner = walletOwner;
    }

    function isValidSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return INVALID_VALUE;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        address recovered = ecrecover(digest, v, r, s);
        return recovered != address(0) && recovered == owner ? MAGIC_VALUE : INVALID_VALUE;
    }
}
