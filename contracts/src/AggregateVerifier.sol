// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @notice The verifier AggregateVerifier hands each TEE proof to (TEEVerifier).
interface ITEEVerifier {
    function verify(bytes calldata proofBytes, bytes32 imageId, bytes32 journalDigest) external view returns (bool);
}

/// @title AggregateVerifier
/// @notice The devnet's output proposals, proven by an enclave signature (docs/contracts.md "AggregateVerifier").
/// A proposal claims the output root `BLOCK_INTERVAL` blocks after its parent (the anchor, or the live proposal
/// ending where it starts), with `BLOCK_INTERVAL / INTERMEDIATE_BLOCK_INTERVAL` intermediate roots: root i is the
/// output root at start + (i + 1) * INTERMEDIATE_BLOCK_INTERVAL, so the last one is the root claim. The proposal
/// is accepted when TEE_VERIFIER accepts a signature over the journal
/// `proposer ‖ l1OriginHash ‖ startingRoot ‖ u64 start ‖ rootClaim ‖ u64 end ‖ roots ‖ CONFIG_HASH ‖ TEE_IMAGE_HASH`
/// (packed), the proposer being msg.sender and the L1 origin a block this chain knows (`blockhash`, or the
/// EIP-2935 history contract for blocks 257 to 8191 back). A challenger nullifies a proposal by proving, for one
/// intermediate interval, a root other than the proposed one; the proposals built on it are invalidated with it.
/// @dev Behaviour of Base's AggregateVerifier (TEE proofs only), without the dispute-game machinery: no factory
/// clones, bonds, resolution delays, anchor-state updates, ZK proofs, or verifier-wide nullification. This is the
/// spec's journal version; ScheduleIdAggregateVerifier extends it with the upgrade schedule id.
contract AggregateVerifier {
    enum Status {
        None,
        Proven,
        Nullified,
        ParentNullified
    }

    struct Proposal {
        address proposer;
        Status status;
        uint64 startingBlock;
        uint64 endingBlock;
        bytes32 startingRoot;
        bytes32 rootClaim;
        /// The L1 origin the proposer's proof was signed for (checked against this chain's block hashes).
        bytes32 l1OriginHash;
        uint64 l1OriginNumber;
        /// The L1 head of the proposal: the parent of the block it was submitted in. Nullification proofs are
        /// signed for it.
        bytes32 l1Head;
        uint64 l1HeadNumber;
        /// Id of the parent proposal; 0 is the anchor.
        uint256 parentId;
        bytes32[] intermediateRoots;
    }

    /// @notice Proof type byte of a TEE proof (the only type accepted).
    uint8 public constant PROOF_TYPE_TEE = 0;
    /// @notice Length of a proposal proof: type(1) ‖ l1OriginHash(32) ‖ l1OriginNumber(32) ‖ signature(65).
    uint256 public constant PROPOSAL_PROOF_LENGTH = 130;
    /// @notice Length of a nullification proof: type(1) ‖ signature(65).
    uint256 public constant NULLIFY_PROOF_LENGTH = 66;
    /// @notice The EIP-2935 block hash history contract (Prague).
    address public constant EIP2935_CONTRACT = 0x0000F90827F1C53a10cb7A02335B175320002935;
    uint256 public constant BLOCKHASH_WINDOW = 256;
    uint256 public constant EIP2935_WINDOW = 8191;

    ITEEVerifier public immutable TEE_VERIFIER;
    bytes32 public immutable TEE_IMAGE_HASH;
    bytes32 public immutable CONFIG_HASH;
    uint256 public immutable BLOCK_INTERVAL;
    uint256 public immutable INTERMEDIATE_BLOCK_INTERVAL;
    /// @notice The starting point of the first proposal: an L2 block and its output root.
    uint256 public immutable ANCHOR_BLOCK;
    bytes32 public immutable ANCHOR_ROOT;

    Proposal[] private _proposals;
    /// @dev keccak256(start, end) => id of the live (proven, not invalidated) proposal of that range.
    mapping(bytes32 => uint256) private _live;
    /// @notice The ending block of the newest live proposal (ANCHOR_BLOCK when there is none).
    uint256 public latestBlock;

    event Proposed(
        uint256 indexed id,
        uint256 indexed startingBlock,
        uint256 indexed endingBlock,
        bytes32 rootClaim,
        address proposer,
        bytes32 l1OriginHash
    );
    event Nullified(uint256 indexed id, address indexed nullifier, uint256 intermediateRootIndex, bytes32 root);
    event ParentInvalidated(uint256 indexed id, uint256 indexed parentId);

    error InvalidBlockInterval(uint256 blockInterval, uint256 intermediateBlockInterval);
    error BlockOutOfRange(uint256 blockNumber);
    error IntermediateRootCountMismatch(uint256 expected, uint256 actual);
    error IntermediateRootMismatch(bytes32 intermediateRoot, bytes32 rootClaim);
    error ParentNotFound(uint256 startingBlock);
    error ProposalExists(uint256 id);
    error InvalidProofLength(uint256 expected, uint256 actual);
    error InvalidProofType(uint8 proofType);
    error L1OriginInFuture(uint256 l1OriginNumber, uint256 currentBlock);
    error L1OriginTooOld(uint256 l1OriginNumber, uint256 currentBlock);
    error L1OriginHashMismatch(bytes32 claimed, bytes32 actual);
    error InvalidProof();
    error ProposalNotLive(uint256 id);
    error InvalidIntermediateRootIndex(uint256 index);
    error IntermediateRootSameAsProposed(bytes32 root);

    constructor(
        ITEEVerifier teeVerifier,
        bytes32 teeImageHash,
        bytes32 configHash,
        uint256 blockInterval,
        uint256 intermediateBlockInterval,
        uint256 anchorBlock,
        bytes32 anchorRoot
    ) {
        if (
            blockInterval == 0 || intermediateBlockInterval == 0 || blockInterval % intermediateBlockInterval != 0
                || blockInterval > type(uint64).max
        ) {
            revert InvalidBlockInterval(blockInterval, intermediateBlockInterval);
        }
        if (anchorBlock > type(uint64).max - blockInterval) revert BlockOutOfRange(anchorBlock);
        TEE_VERIFIER = teeVerifier;
        TEE_IMAGE_HASH = teeImageHash;
        CONFIG_HASH = configHash;
        BLOCK_INTERVAL = blockInterval;
        INTERMEDIATE_BLOCK_INTERVAL = intermediateBlockInterval;
        ANCHOR_BLOCK = anchorBlock;
        ANCHOR_ROOT = anchorRoot;
        latestBlock = anchorBlock;
    }

    /// @notice The number of intermediate roots of every proposal (the root claim is the last one).
    function intermediateRootsCount() public view returns (uint256) {
        return BLOCK_INTERVAL / INTERMEDIATE_BLOCK_INTERVAL;
    }

    /// @notice Submits and proves the output root at `endingBlock`, whose parent is the live proposal (or the
    /// anchor) ending at `endingBlock - BLOCK_INTERVAL`. msg.sender is the journal's proposer.
    /// @param proof type(1 byte, 0: TEE) ‖ l1OriginHash(32) ‖ l1OriginNumber(32) ‖ signature r‖s‖v(65, v 27/28).
    /// @return id The proposal's id (from 1 on).
    function propose(uint256 endingBlock, bytes32 rootClaim, bytes32[] calldata intermediateRoots, bytes calldata proof)
        external
        returns (uint256 id)
    {
        uint256 count = intermediateRootsCount();
        if (intermediateRoots.length != count) revert IntermediateRootCountMismatch(count, intermediateRoots.length);
        if (intermediateRoots[count - 1] != rootClaim) {
            revert IntermediateRootMismatch(intermediateRoots[count - 1], rootClaim);
        }
        (uint256 parentId, bytes32 startingRoot) = _parentOf(endingBlock);
        bytes32 key = _rangeKey(endingBlock - BLOCK_INTERVAL, endingBlock);
        if (_live[key] != 0) revert ProposalExists(_live[key]);
        if (proof.length != PROPOSAL_PROOF_LENGTH) revert InvalidProofLength(PROPOSAL_PROOF_LENGTH, proof.length);
        if (uint8(proof[0]) != PROOF_TYPE_TEE) revert InvalidProofType(uint8(proof[0]));
        _verifyL1Origin(bytes32(proof[1:33]), uint256(bytes32(proof[33:65])));

        // Recorded first, then proven from the record (a failed proof reverts the whole call).
        Proposal storage p = _proposals.push();
        p.proposer = msg.sender;
        p.status = Status.Proven;
        p.startingBlock = uint64(endingBlock - BLOCK_INTERVAL);
        p.endingBlock = uint64(endingBlock);
        p.startingRoot = startingRoot;
        p.rootClaim = rootClaim;
        p.l1OriginHash = bytes32(proof[1:33]);
        p.l1OriginNumber = uint64(uint256(bytes32(proof[33:65])));
        p.l1Head = blockhash(block.number - 1);
        p.l1HeadNumber = uint64(block.number - 1);
        p.parentId = parentId;
        p.intermediateRoots = intermediateRoots;
        id = _proposals.length;
        _onRecorded(id, endingBlock);
        _verifyTeeProof(proof[65:], _proposalJournal(p, abi.encodePacked(intermediateRoots)), id);

        _live[key] = id;
        if (endingBlock > latestBlock) latestBlock = endingBlock;
        emit Proposed(id, p.startingBlock, endingBlock, rootClaim, msg.sender, p.l1OriginHash);
    }

    /// @notice Nullifies live proposal `id` by proving that the output root at the end of intermediate interval
    /// `index` is `root`, not the proposed one; every live proposal built on it is invalidated too. msg.sender is
    /// the journal's proposer, the L1 origin is the proposal's `l1Head`, and the journal holds one intermediate root.
    /// @param proofBytes type(1 byte, 0: TEE) ‖ signature r‖s‖v(65, v 27/28).
    function nullify(uint256 id, bytes calldata proofBytes, uint256 index, bytes32 root) external {
        if (id == 0 || id > _proposals.length || _proposals[id - 1].status != Status.Proven) {
            revert ProposalNotLive(id);
        }
        Proposal storage p = _proposals[id - 1];
        if (index >= p.intermediateRoots.length) revert InvalidIntermediateRootIndex(index);
        if (p.intermediateRoots[index] == root) revert IntermediateRootSameAsProposed(root);
        if (proofBytes.length != NULLIFY_PROOF_LENGTH) {
            revert InvalidProofLength(NULLIFY_PROOF_LENGTH, proofBytes.length);
        }
        if (uint8(proofBytes[0]) != PROOF_TYPE_TEE) revert InvalidProofType(uint8(proofBytes[0]));

        bytes32 startingRoot = index == 0 ? p.startingRoot : p.intermediateRoots[index - 1];
        uint256 start = p.startingBlock + index * INTERMEDIATE_BLOCK_INTERVAL;
        _verifyTeeProof(
            proofBytes[1:],
            _journal(p.l1Head, startingRoot, start, root, start + INTERMEDIATE_BLOCK_INTERVAL, abi.encodePacked(root)),
            id
        );

        p.status = Status.Nullified;
        delete _live[_rangeKey(p.startingBlock, p.endingBlock)];
        emit Nullified(id, msg.sender, index, root);

        // The live proposals form one chain from the anchor: invalidate the part after the nullified one.
        uint256 parentId = id;
        uint256 childStart = p.endingBlock;
        while (true) {
            bytes32 childKey = _rangeKey(childStart, childStart + BLOCK_INTERVAL);
            uint256 childId = _live[childKey];
            if (childId == 0 || _proposals[childId - 1].parentId != parentId) break;
            _proposals[childId - 1].status = Status.ParentNullified;
            delete _live[childKey];
            emit ParentInvalidated(childId, parentId);
            parentId = childId;
            childStart += BLOCK_INTERVAL;
        }
        latestBlock = p.startingBlock;
    }

    /// @notice The number of proposals ever made (ids run from 1 to this).
    function proposalCount() public view returns (uint256) {
        return _proposals.length;
    }

    function getProposal(uint256 id) external view returns (Proposal memory) {
        if (id == 0 || id > _proposals.length) revert ProposalNotLive(id);
        return _proposals[id - 1];
    }

    /// @notice The id of the live proposal of the range (startingBlock, endingBlock], or 0.
    function proposalAt(uint256 startingBlock, uint256 endingBlock) external view returns (uint256) {
        return _live[_rangeKey(startingBlock, endingBlock)];
    }

    /// @dev The parent of a proposal ending at `endingBlock`: 0 and the anchor root, or the live proposal ending
    /// where it starts.
    function _parentOf(uint256 endingBlock) private view returns (uint256 parentId, bytes32 startingRoot) {
        if (endingBlock < ANCHOR_BLOCK + BLOCK_INTERVAL || endingBlock > type(uint64).max) {
            revert BlockOutOfRange(endingBlock);
        }
        uint256 startingBlock = endingBlock - BLOCK_INTERVAL;
        if (startingBlock == ANCHOR_BLOCK) return (0, ANCHOR_ROOT);
        if (startingBlock < ANCHOR_BLOCK + BLOCK_INTERVAL) revert ParentNotFound(startingBlock);
        parentId = _live[_rangeKey(startingBlock - BLOCK_INTERVAL, startingBlock)];
        if (parentId == 0) revert ParentNotFound(startingBlock);
        startingRoot = _proposals[parentId - 1].rootClaim;
    }

    /// @dev The packed TEE journal with msg.sender as the proposer (docs/contracts.md "The journal").
    function _journal(
        bytes32 l1OriginHash,
        bytes32 startingRoot,
        uint256 startingBlock,
        bytes32 endingRoot,
        uint256 endingBlock,
        bytes memory intermediateRoots
    ) private view returns (bytes memory) {
        return abi.encodePacked(
            msg.sender,
            l1OriginHash,
            startingRoot,
            uint64(startingBlock),
            endingRoot,
            uint64(endingBlock),
            intermediateRoots,
            CONFIG_HASH,
            TEE_IMAGE_HASH
        );
    }

    /// @dev The journal of a proposal's own proof.
    function _proposalJournal(Proposal storage p, bytes memory intermediateRoots) private view returns (bytes memory) {
        return _journal(
            p.l1OriginHash, p.startingRoot, p.startingBlock, p.rootClaim, p.endingBlock, intermediateRoots
        );
    }

    /// @dev Reverts (with TEE_VERIFIER's error) unless `signature` is msg.sender's valid proof of `journal`
    /// followed by proposal `id`'s journal suffix.
    function _verifyTeeProof(bytes calldata signature, bytes memory journal, uint256 id) private view {
        bytes32 digest = keccak256(bytes.concat(journal, _journalSuffix(id)));
        if (!TEE_VERIFIER.verify(abi.encodePacked(msg.sender, signature), TEE_IMAGE_HASH, digest)) {
            revert InvalidProof();
        }
    }

    /// @dev Called once proposal `id`, ending at `endingBlock`, is recorded and before its proof is checked: a
    /// journal version that pins values per proposal pins them here. Nothing in the spec's version.
    function _onRecorded(uint256 id, uint256 endingBlock) internal virtual {}

    /// @dev What every journal of proposal `id`'s proofs (its own and its nullifications') has after TEE_IMAGE_HASH:
    /// nothing in the spec's version (196 + 32·N bytes).
    function _journalSuffix(uint256 id) internal view virtual returns (bytes memory) {}

    function _rangeKey(uint256 startingBlock, uint256 endingBlock) private pure returns (bytes32) {
        return keccak256(abi.encode(startingBlock, endingBlock));
    }

    /// @dev Reverts unless `l1OriginHash` is the hash of this chain's block `l1OriginNumber`.
    function _verifyL1Origin(bytes32 l1OriginHash, uint256 l1OriginNumber) private view {
        if (l1OriginNumber >= block.number) revert L1OriginInFuture(l1OriginNumber, block.number);
        uint256 age = block.number - l1OriginNumber;
        bytes32 actual;
        if (age <= BLOCKHASH_WINDOW) {
            actual = blockhash(l1OriginNumber);
        } else if (age <= EIP2935_WINDOW) {
            // The history contract takes the bare 32-byte block number (no selector).
            (bool ok, bytes memory result) = EIP2935_CONTRACT.staticcall(abi.encode(l1OriginNumber));
            if (!ok || result.length != 32) revert L1OriginTooOld(l1OriginNumber, block.number);
            actual = abi.decode(result, (bytes32));
        } else {
            revert L1OriginTooOld(l1OriginNumber, block.number);
        }
        if (actual == bytes32(0)) revert L1OriginTooOld(l1OriginNumber, block.number);
        if (actual != l1OriginHash) revert L1OriginHashMismatch(l1OriginHash, actual);
    }
}
