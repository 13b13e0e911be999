// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title LoadStorage
/// @notice The storage-heavy calls of the load generator: `fill(count)` writes `count` fresh slots (keys derived
/// from the caller and a running counter, so every call creates new state, as indexers, games and bots on
/// mainnet do) and `slotsWritten` counts them.
contract LoadStorage {
    mapping(bytes32 => uint256) public slots;
    uint256 public slotsWritten;

    event Filled(address indexed caller, uint256 first, uint256 count);

    function fill(uint256 count) external {
        uint256 first = slotsWritten;
        for (uint256 i = 0; i < count; i++) {
            slots[keccak256(abi.encodePacked(msg.sender, first + i))] = first + i + 1;
        }
        slotsWritten = first + count;
        emit Filled(msg.sender, first, count);
    }
}
