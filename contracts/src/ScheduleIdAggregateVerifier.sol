// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {AggregateVerifier, ITEEVerifier} from "./AggregateVerifier.sol";

/// @notice The ProtocolVersions view the verifier pins proposals with.
interface IUpgradeSchedule {
    function activatedScheduleId(uint64 l2Timestamp) external view returns (bytes32);
}

/// @title ScheduleIdAggregateVerifier
/// @notice AggregateVerifier of the schedule-id journal version (docs/contracts.md "ScheduleIdAggregateVerifier"):
/// each proposal pins `PROTOCOL_VERSIONS.activatedScheduleId(claimTimestamp)`, the commitment to the upgrades active
/// at its ending block's L2 time, and every journal of its proofs (its own and its nullifications') carries that
/// schedule id after TEE_IMAGE_HASH (228 + 32·N bytes). An enclave signs the schedule id of the upgrade schedule
/// built into its image, so once the chain's schedule has an active upgrade the image does not implement, its
/// proofs no longer verify here: the fork horizon, enforced onchain.
/// @dev Behaviour of Base's AggregateVerifier with the schedule id (base/contracts PR #359): the claim timestamp is
/// L2_GENESIS_TIMESTAMP + (endingBlock - L2_GENESIS_BLOCK_NUMBER) * L2_BLOCK_TIME and must not be in the L1's
/// future when it is pinned.
contract ScheduleIdAggregateVerifier is AggregateVerifier {
    /// @notice The upgrade registry and the L2 chain's timestamp anchor.
    struct ScheduleConfig {
        IUpgradeSchedule protocolVersions;
        uint256 genesisBlockNumber;
        uint64 genesisTimestamp;
        uint64 blockTime;
    }

    IUpgradeSchedule public immutable PROTOCOL_VERSIONS;
    uint256 public immutable L2_GENESIS_BLOCK_NUMBER;
    uint64 public immutable L2_GENESIS_TIMESTAMP;
    uint64 public immutable L2_BLOCK_TIME;

    /// @dev Proposal id => the schedule id pinned when it was proposed.
    mapping(uint256 => bytes32) private _scheduleIds;

    event SchedulePinned(uint256 indexed id, uint64 claimTimestamp, bytes32 scheduleId);

    error InvalidL2BlockTime();
    error L2BlockBeforeGenesis(uint256 blockNumber, uint256 genesisBlockNumber);
    error L2TimestampOverflow(uint256 blockNumber);
    error L2TimestampInFuture(uint64 claimTimestamp, uint256 l1Timestamp);

    constructor(
        ITEEVerifier teeVerifier,
        bytes32 teeImageHash,
        bytes32 configHash,
        uint256 blockInterval,
        uint256 intermediateBlockInterval,
        uint256 anchorBlock,
        bytes32 anchorRoot,
        ScheduleConfig memory schedule
    )
        AggregateVerifier(
            teeVerifier, teeImageHash, configHash, blockInterval, intermediateBlockInterval, anchorBlock, anchorRoot
        )
    {
        if (schedule.blockTime == 0) revert InvalidL2BlockTime();
        PROTOCOL_VERSIONS = schedule.protocolVersions;
        L2_GENESIS_BLOCK_NUMBER = schedule.genesisBlockNumber;
        L2_GENESIS_TIMESTAMP = schedule.genesisTimestamp;
        L2_BLOCK_TIME = schedule.blockTime;
    }

    /// @notice The L2 timestamp of block `blockNumber`.
    function l2Timestamp(uint256 blockNumber) public view returns (uint64) {
        if (blockNumber < L2_GENESIS_BLOCK_NUMBER) revert L2BlockBeforeGenesis(blockNumber, L2_GENESIS_BLOCK_NUMBER);
        uint256 elapsed = blockNumber - L2_GENESIS_BLOCK_NUMBER;
        if (elapsed > (type(uint64).max - L2_GENESIS_TIMESTAMP) / L2_BLOCK_TIME) revert L2TimestampOverflow(blockNumber);
        return L2_GENESIS_TIMESTAMP + uint64(elapsed) * L2_BLOCK_TIME;
    }

    /// @notice The schedule id proposal `id` pinned.
    function scheduleIdOf(uint256 id) external view returns (bytes32) {
        if (id == 0 || id > proposalCount()) revert ProposalNotLive(id);
        return _scheduleIds[id];
    }

    function _onRecorded(uint256 id, uint256 endingBlock) internal override {
        uint64 claimTimestamp = l2Timestamp(endingBlock);
        if (claimTimestamp > block.timestamp) revert L2TimestampInFuture(claimTimestamp, block.timestamp);
        bytes32 pinned = PROTOCOL_VERSIONS.activatedScheduleId(claimTimestamp);
        _scheduleIds[id] = pinned;
        emit SchedulePinned(id, claimTimestamp, pinned);
    }

    function _journalSuffix(uint256 id) internal view override returns (bytes memory) {
        return abi.encodePacked(_scheduleIds[id]);
    }
}
