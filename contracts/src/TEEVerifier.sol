// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @notice The TEEProverRegistry views TEEVerifier reads.
interface ITEEProverRegistryViews {
    function isValidProposer(address proposer) external view returns (bool);
    function isRegisteredSigner(address signer) external view returns (bool);
    function signerImageHash(address signer) external view returns (bytes32);
}

/// @title TEEVerifier
/// @notice Stateless check of one enclave signature over a journal digest (docs/contracts.md "TEEVerifier").
/// The proof is `proposer(20) ‖ r(32) ‖ s(32) ‖ v(1)`; the signature is plain secp256k1 ECDSA over the digest
/// (no EIP-191 prefix), with a low s (at most n/2) and v 27 or 28: the enclave's raw recovery id 0/1 is refused,
/// the submitter adds 27. The proposer must be on the registry's proposer list, the recovered signer registered,
/// and the image hash it was registered with must equal `imageId` (the caller's TEE_IMAGE_HASH), so a signer of
/// another enclave image cannot prove for this one.
/// @dev The journal itself (and so the binding of the proposer to msg.sender, the L1 origin and the output roots)
/// is built by the caller, e.g. AggregateVerifier.
contract TEEVerifier {
    /// @notice The registry of proposers and enclave signers.
    ITEEProverRegistryViews public immutable TEE_PROVER_REGISTRY;

    /// @notice Length of a proof: proposer(20) + signature(65).
    uint256 public constant PROOF_LENGTH = 85;

    /// @dev secp256k1 group order / 2: a larger s is the malleable twin of a valid signature (EIP-2).
    uint256 private constant HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    error InvalidProofFormat(uint256 length);
    error InvalidProposer(address proposer);
    error SignatureInvalidV(uint8 v);
    error SignatureHighS(bytes32 s);
    error InvalidSignature();
    error InvalidSigner(address signer);
    error ImageIdMismatch(bytes32 signerImageHash, bytes32 claimedImageId);

    constructor(ITEEProverRegistryViews registry) {
        TEE_PROVER_REGISTRY = registry;
    }

    /// @notice Reverts unless `proofBytes` is a valid proposer's proof signed by a registered signer of `imageId`
    /// over `journalDigest`; returns true otherwise.
    function verify(bytes calldata proofBytes, bytes32 imageId, bytes32 journalDigest) external view returns (bool) {
        if (proofBytes.length != PROOF_LENGTH) revert InvalidProofFormat(proofBytes.length);

        address proposer = address(bytes20(proofBytes[0:20]));
        if (!TEE_PROVER_REGISTRY.isValidProposer(proposer)) revert InvalidProposer(proposer);

        address signer = recoverSigner(journalDigest, proofBytes[20:PROOF_LENGTH]);
        if (!TEE_PROVER_REGISTRY.isRegisteredSigner(signer)) revert InvalidSigner(signer);
        bytes32 registered = TEE_PROVER_REGISTRY.signerImageHash(signer);
        if (registered != imageId) revert ImageIdMismatch(registered, imageId);
        return true;
    }

    /// @notice The signer of a 65-byte r‖s‖v signature over `digest`, with the checks of `verify`.
    function recoverSigner(bytes32 digest, bytes calldata signature) public pure returns (address signer) {
        if (signature.length != 65) revert InvalidProofFormat(signature.length);
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (v != 27 && v != 28) revert SignatureInvalidV(v);
        if (uint256(s) > HALF_ORDER) revert SignatureHighS(s);
        signer = ecrecover(digest, v, r, s);
        if (signer == address(0)) revert InvalidSignature();
    }
}
