// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title DepositPortal
/// @notice The devnet's L1 deposit contract: the deposit half of the OP Stack's OptimismPortal2. A call to
/// `depositTransaction` emits exactly the `TransactionDeposited` event the rollup node derives a deposit
/// transaction from (specs/protocol/deposits.md), with OptimismPortal2's checks: a creation targets the zero
/// address, the L2 gas limit is at least `minimumGasLimit(data.length)` (40 gas per byte + 21000, OptimismPortal2
/// 5.x), the data is at most 120,000 bytes, and a caller that is not an EOA (msg.sender != tx.origin and its code is
/// not an EIP-7702 delegation) is replaced by its L1-to-L2 alias (address + 0x1111000000000000000000000000000000001111).
/// @dev Not included: withdrawals, custom gas tokens, pausing, and the resource metering that makes L1 callers burn
/// gas for the L2 gas they buy (a devnet's L1 gas is free). The ETH sent (`msg.value`) stays in this contract and is
/// minted on L2 by the deposit.
contract DepositPortal {
    /// @notice Version of the TransactionDeposited event's opaque data.
    uint256 public constant DEPOSIT_VERSION = 0;
    /// @notice The L2 gas limit of a deposit made by sending ETH to this contract.
    uint64 public constant RECEIVE_DEFAULT_GAS_LIMIT = 100_000;
    /// @notice The largest calldata of a deposit (fits the P2P network's 128 KiB transaction policy).
    uint256 public constant MAX_DEPOSIT_DATA_LENGTH = 120_000;
    /// @dev The L1-to-L2 address alias offset (AddressAliasHelper).
    uint160 private constant ALIAS_OFFSET = uint160(0x1111000000000000000000000000000000001111);

    /// @notice Emitted for every deposit; read by the rollup node to derive the deposit transaction.
    /// @param from       The L2 sender: the caller, aliased when it is a contract.
    /// @param to         The L2 target (zero for a creation).
    /// @param version    The opaque data's version (0).
    /// @param opaqueData abi.encodePacked(mint, value, gasLimit, isCreation, data).
    event TransactionDeposited(address indexed from, address indexed to, uint256 indexed version, bytes opaqueData);

    /// @notice A creation deposit named a target other than the zero address.
    error BadTarget();
    /// @notice The L2 gas limit is below minimumGasLimit(data.length).
    error GasLimitTooLow(uint64 gasLimit, uint64 minimum);
    /// @notice The deposit's data is longer than MAX_DEPOSIT_DATA_LENGTH.
    error CalldataTooLarge(uint256 length);

    /// @notice The smallest L2 gas limit accepted for a deposit carrying `byteCount` bytes of data.
    function minimumGasLimit(uint64 byteCount) public pure returns (uint64) {
        return byteCount * 40 + 21000;
    }

    /// @notice Sending ETH deposits it to the sender's own address on L2 (meant for EOAs: a contract's deposit is
    /// credited to its alias).
    receive() external payable {
        depositTransaction(msg.sender, msg.value, RECEIVE_DEFAULT_GAS_LIMIT, false, bytes(""));
    }

    /// @notice Deposits a transaction to L2: `msg.value` is minted to the sender on L2, then the sender calls (or
    /// creates, with `isCreation`) `to` with `value` and `data` under `gasLimit`.
    function depositTransaction(
        address to,
        uint256 value,
        uint64 gasLimit,
        bool isCreation,
        bytes memory data
    ) public payable {
        if (isCreation && to != address(0)) revert BadTarget();
        uint64 minimum = minimumGasLimit(uint64(data.length));
        if (gasLimit < minimum) revert GasLimitTooLow(gasLimit, minimum);
        if (data.length > MAX_DEPOSIT_DATA_LENGTH) revert CalldataTooLarge(data.length);

        address from = msg.sender;
        if (!_isSenderEOA()) {
            unchecked {
                from = address(uint160(msg.sender) + ALIAS_OFFSET);
            }
        }
        bytes memory opaqueData = abi.encodePacked(msg.value, value, gasLimit, isCreation, data);
        emit TransactionDeposited(from, to, DEPOSIT_VERSION, opaqueData);
    }

    /// @dev An EOA is the transaction's origin, or an account whose code is an EIP-7702 delegation designator
    /// (0xef0100 followed by an address, 23 bytes).
    function _isSenderEOA() private view returns (bool) {
        if (msg.sender == tx.origin) return true;
        if (msg.sender.code.length != 23) return false;
        return bytes3(msg.sender.code) == 0xef0100;
    }
}
