// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title ProtocolVersions
/// @notice The chain's upgrade activation schedule and its commitment, the schedule id (docs/contracts.md
/// "ProtocolVersions"). Upgrades are registered append-only and identified by their registration index (0, 1, 2,
/// ...); each has an L2 activation timestamp, 0 meaning "not scheduled". The schedule id is the tail of a hash chain
/// seeded with 32 zero bytes:
///   link[0] = 0, link[i + 1] = keccak256(abi.encode(link[i], uint256 i, uint64 timestamp_i)).
/// `activatedScheduleId(t)` is the link through the newest upgrade active at L2 time `t` (non-zero timestamp at
/// most `t`), the seed when none is: what the schedule-id AggregateVerifier pins for a claim and the enclave signs.
/// @dev Behaviour of Base's ProtocolVersions (base/contracts src/L1/ProtocolVersions.sol): the same chain, the same
/// ordering rules (non-zero timestamps strictly increase with the id; no unscheduled hole below a scheduled
/// upgrade), one hour's notice to change a timestamp, and an incident responder that may only delay. Deployed
/// directly, not behind a proxy: the constructor seeds the chain and names the owner.
contract ProtocolVersions {
    /// @notice Notice required to set or delay an activation.
    uint64 public constant MIN_NOTICE = 1 hours;

    /// @notice The owner: registers upgrades, sets timestamps, appoints the incident responder.
    address public owner;
    /// @notice May only push a scheduled, not yet active upgrade later (zero: nobody).
    address public incidentResponder;
    /// @notice The minimum protocol version clients must run (informational, not in the schedule id).
    uint256 public minimumProtocolVersion;

    /// @dev Activation timestamp of each registered upgrade, by id (0 = not scheduled).
    uint64[] private _timestamps;
    /// @dev The hash chain: element 0 the seed, element i + 1 the link through upgrade i.
    bytes32[] private _links;

    event UpgradeRegistered(uint256 indexed id);
    event TimestampSet(uint256 indexed id, uint256 timestamp);
    event ScheduleIdUpdated(bytes32 indexed newScheduleId);
    event MinimumProtocolVersionUpdated(uint256 indexed protocolVersion);
    event IncidentResponderUpdated(address indexed previous, address indexed next);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    error NotOwner(address caller);
    error NotIncidentResponder(address caller);
    error ZeroAddress();
    error UnknownUpgrade(uint256 id);
    error InvalidProtocolVersion();
    error ActivationAlreadyPassed(uint256 id, uint64 activationTimestamp);
    error NotScheduled(uint256 id);
    error DelayMustBeLater(uint64 currentTimestamp, uint64 newTimestamp);
    error StaticScheduleHole(uint256 id, uint256 nextScheduledId);
    error TimestampNotAfterPrevious(uint256 id, uint256 previousId, uint64 previousTimestamp, uint64 timestamp);
    error TimestampNotBeforeNext(uint256 id, uint256 nextId, uint64 timestamp, uint64 nextTimestamp);
    error InsufficientNotice(uint64 timestamp);

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        _;
    }

    /// @param initialSchedule The chain's upgrades registered at deployment, in id order, under the same rules as
    /// `registerUpgrade` (e.g. the upgrades of a running chain, with their past activation times).
    constructor(address initialOwner, address initialIncidentResponder, uint64[] memory initialSchedule) {
        if (initialOwner == address(0)) revert ZeroAddress();
        owner = initialOwner;
        emit OwnershipTransferred(address(0), initialOwner);
        incidentResponder = initialIncidentResponder;
        emit IncidentResponderUpdated(address(0), initialIncidentResponder);
        _links.push(bytes32(0));
        emit ScheduleIdUpdated(bytes32(0));
        for (uint256 i = 0; i < initialSchedule.length; i++) {
            _register(initialSchedule[i]);
        }
    }

    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert ZeroAddress();
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    /// @notice Registers the next upgrade, scheduled at `timestamp` (0: unscheduled) and, unless
    /// `minProtocolVersion` is 0, sets the minimum protocol version. A registration schedules without notice (the
    /// chain's existing upgrades are registered with their past times); later changes need MIN_NOTICE.
    /// @return id The new upgrade's id.
    function registerUpgrade(uint64 timestamp, uint256 minProtocolVersion) external onlyOwner returns (uint256 id) {
        id = _register(timestamp);
        if (minProtocolVersion != 0) _setMinimumProtocolVersion(minProtocolVersion);
    }

    function _register(uint64 timestamp) private returns (uint256 id) {
        id = _timestamps.length;
        _requireAfterPrevious(id, timestamp);
        _timestamps.push(timestamp);
        _links.push();
        emit UpgradeRegistered(id);
        if (timestamp != 0) emit TimestampSet(id, timestamp);
        _relink(id);
    }

    /// @notice Sets (or, with 0, clears) the activation of upgrade `id`, which must not be active yet; a new
    /// timestamp must be at least MIN_NOTICE away and keep the order.
    function setTimestamp(uint256 id, uint64 timestamp) external onlyOwner {
        _requireRegistered(id);
        uint64 current = _timestamps[id];
        if (current == timestamp) return;
        if (current != 0 && uint64(block.timestamp) >= current) revert ActivationAlreadyPassed(id, current);
        if (timestamp != 0) {
            if (timestamp < uint64(block.timestamp) + MIN_NOTICE) revert InsufficientNotice(timestamp);
            if (current == 0) _requireNoScheduledSuccessor(id);
            _requireAfterPrevious(id, timestamp);
            _requireBeforeNext(id, timestamp);
        }
        _write(id, timestamp);
    }

    /// @notice The incident responder pushes a scheduled, not yet active upgrade to a later time.
    function delayTimestamp(uint256 id, uint64 newTimestamp) external {
        if (msg.sender != incidentResponder) revert NotIncidentResponder(msg.sender);
        _requireRegistered(id);
        uint64 current = _timestamps[id];
        if (current == 0) revert NotScheduled(id);
        if (uint64(block.timestamp) >= current) revert ActivationAlreadyPassed(id, current);
        if (newTimestamp <= current) revert DelayMustBeLater(current, newTimestamp);
        if (newTimestamp < uint64(block.timestamp) + MIN_NOTICE) revert InsufficientNotice(newTimestamp);
        _requireBeforeNext(id, newTimestamp);
        _write(id, newTimestamp);
    }

    function setIncidentResponder(address next) external onlyOwner {
        emit IncidentResponderUpdated(incidentResponder, next);
        incidentResponder = next;
    }

    function setMinimumProtocolVersion(uint256 protocolVersion) external onlyOwner {
        if (protocolVersion == 0) revert InvalidProtocolVersion();
        _setMinimumProtocolVersion(protocolVersion);
    }

    /// @notice The commitment to the whole schedule.
    function scheduleId() external view returns (bytes32) {
        return _links[_links.length - 1];
    }

    /// @notice The commitment to upgrades 0 through `id`.
    function scheduleId(uint256 id) external view returns (bytes32) {
        _requireRegistered(id);
        return _links[id + 1];
    }

    /// @notice The commitment through the newest upgrade active at L2 time `l2Timestamp` (the seed when none is);
    /// unscheduled upgrades below it stay in the committed prefix.
    function activatedScheduleId(uint64 l2Timestamp) external view returns (bytes32) {
        for (uint256 i = _timestamps.length; i > 0; i--) {
            uint64 activation = _timestamps[i - 1];
            if (activation != 0 && activation <= l2Timestamp) return _links[i];
        }
        return _links[0];
    }

    /// @notice Every registered upgrade's activation timestamp, by id.
    function getSchedule() external view returns (uint64[] memory) {
        return _timestamps;
    }

    function upgradeCount() external view returns (uint256) {
        return _timestamps.length;
    }

    function _write(uint256 id, uint64 timestamp) private {
        _timestamps[id] = timestamp;
        emit TimestampSet(id, timestamp);
        _relink(id);
    }

    /// @dev Recomputes the links from upgrade `from` on.
    function _relink(uint256 from) private {
        bytes32 link = _links[from];
        for (uint256 i = from; i < _timestamps.length; i++) {
            link = keccak256(abi.encode(link, i, _timestamps[i]));
            _links[i + 1] = link;
        }
        emit ScheduleIdUpdated(link);
    }

    function _setMinimumProtocolVersion(uint256 protocolVersion) private {
        minimumProtocolVersion = protocolVersion;
        emit MinimumProtocolVersionUpdated(protocolVersion);
    }

    function _requireRegistered(uint256 id) private view {
        if (id >= _timestamps.length) revert UnknownUpgrade(id);
    }

    /// @dev An unscheduled upgrade may not be scheduled below a scheduled one (it would move active commitments).
    function _requireNoScheduledSuccessor(uint256 id) private view {
        for (uint256 i = id + 1; i < _timestamps.length; i++) {
            if (_timestamps[i] != 0) revert StaticScheduleHole(id, i);
        }
    }

    /// @dev A non-zero `timestamp` must be later than the nearest scheduled upgrade below `id`.
    function _requireAfterPrevious(uint256 id, uint64 timestamp) private view {
        if (timestamp == 0) return;
        for (uint256 i = id; i > 0; i--) {
            uint64 previous = _timestamps[i - 1];
            if (previous != 0) {
                if (timestamp <= previous) revert TimestampNotAfterPrevious(id, i - 1, previous, timestamp);
                return;
            }
        }
    }

    /// @dev A non-zero `timestamp` must be earlier than the nearest scheduled upgrade above `id`.
    function _requireBeforeNext(uint256 id, uint64 timestamp) private view {
        for (uint256 i = id + 1; i < _timestamps.length; i++) {
            uint64 next = _timestamps[i];
            if (next != 0) {
                if (timestamp >= next) revert TimestampNotBeforeNext(id, i, timestamp, next);
                return;
            }
        }
    }
}
