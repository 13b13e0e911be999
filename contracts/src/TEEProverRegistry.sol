// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title TEEProverRegistry
/// @notice Registry of enclave signer addresses, each bound to the image hash (keccak256 of PCR0) the
/// enclave attested to. A signer is valid only while it is registered and its image hash is the
/// active one, so rotating the active image hash retires every signer of the previous image at once.
/// @dev Attestation documents are verified offchain by the registrar (the owner or a manager), which
/// then registers the attested signer address with its image hash here. The zero image hash is the
/// local-mode (no security module) image used in development and tests. Proposers (the L1 accounts allowed to
/// submit TEE proofs through TEEVerifier) are an owner-managed allowlist, as in Base's registry.
contract TEEProverRegistry {
    struct SignerRecord {
        bool registered;
        bytes32 imageHash;
    }

    address public owner;
    bytes32 public activeImageHash;
    mapping(address => bool) public isManager;
    mapping(address => SignerRecord) private _signers;
    /// @notice Accounts whose TEE proofs TEEVerifier accepts (the proposer element of the signed journal).
    mapping(address => bool) public isValidProposer;

    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);
    event ManagerUpdated(address indexed manager, bool enabled);
    event ActiveImageHashUpdated(bytes32 indexed previousImageHash, bytes32 indexed newImageHash);
    event SignerRegistered(address indexed signer, bytes32 indexed imageHash);
    event SignerDeregistered(address indexed signer, bytes32 indexed imageHash);
    event ProposerSet(address indexed proposer, bool isValid);

    error NotOwner(address caller);
    error NotRegistrar(address caller);
    error ZeroAddress();
    error SignerNotRegistered(address signer);

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        _;
    }

    modifier onlyRegistrar() {
        if (msg.sender != owner && !isManager[msg.sender]) revert NotRegistrar(msg.sender);
        _;
    }

    constructor(address initialOwner, bytes32 initialImageHash) {
        if (initialOwner == address(0)) revert ZeroAddress();
        owner = initialOwner;
        activeImageHash = initialImageHash;
        emit OwnershipTransferred(address(0), initialOwner);
        emit ActiveImageHashUpdated(bytes32(0), initialImageHash);
    }

    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert ZeroAddress();
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    /// @notice Grants or revokes the registrar role of a manager (a registrar service account).
    function setManager(address manager, bool enabled) external onlyOwner {
        if (manager == address(0)) revert ZeroAddress();
        isManager[manager] = enabled;
        emit ManagerUpdated(manager, enabled);
    }

    /// @notice Image rotation: from now on only signers bound to `newImageHash` are valid.
    function setActiveImageHash(bytes32 newImageHash) external onlyOwner {
        emit ActiveImageHashUpdated(activeImageHash, newImageHash);
        activeImageHash = newImageHash;
    }

    /// @notice Adds (`isValid`) or removes a proposer.
    function setProposer(address proposer, bool isValid) external onlyOwner {
        if (proposer == address(0)) revert ZeroAddress();
        isValidProposer[proposer] = isValid;
        emit ProposerSet(proposer, isValid);
    }

    /// @notice Registers (or re-binds) a signer whose attestation the registrar verified offchain.
    function registerSigner(address signer, bytes32 imageHash) external onlyRegistrar {
        if (signer == address(0)) revert ZeroAddress();
        _signers[signer] = SignerRecord({registered: true, imageHash: imageHash});
        emit SignerRegistered(signer, imageHash);
    }

    function deregisterSigner(address signer) external onlyRegistrar {
        SignerRecord memory record = _signers[signer];
        if (!record.registered) revert SignerNotRegistered(signer);
        delete _signers[signer];
        emit SignerDeregistered(signer, record.imageHash);
    }

    function isRegisteredSigner(address signer) external view returns (bool) {
        return _signers[signer].registered;
    }

    /// @notice The image hash a registered signer is bound to (zero when not registered).
    function signerImageHash(address signer) external view returns (bytes32) {
        return _signers[signer].imageHash;
    }

    /// @notice True only for a registered signer bound to the active image hash.
    function isValidSigner(address signer) external view returns (bool) {
        SignerRecord memory record = _signers[signer];
        return record.registered && record.imageHash == activeImageHash;
    }
}
