// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title LoadNft
/// @notice An open-mint ERC-721 collection for the load generator: `mint()` gives the caller the next token id, the
/// storage writes of a mainnet NFT mint (owner, balance, supply) and its Transfer event. Transfers as ERC-721's
/// `transferFrom` by the owner; no approvals, no safe transfers, no metadata.
contract LoadNft {
    string public constant name = "Load NFT";
    string public constant symbol = "LNFT";
    uint256 public totalSupply;
    mapping(uint256 => address) public ownerOf;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);

    error NotOwner(uint256 tokenId, address caller);

    /// @notice Mints the next token id to the caller.
    function mint() external returns (uint256 tokenId) {
        tokenId = ++totalSupply;
        ownerOf[tokenId] = msg.sender;
        balanceOf[msg.sender] += 1;
        emit Transfer(address(0), msg.sender, tokenId);
    }

    function transferFrom(address from, address to, uint256 tokenId) external {
        if (ownerOf[tokenId] != from || from != msg.sender) revert NotOwner(tokenId, msg.sender);
        ownerOf[tokenId] = to;
        balanceOf[from] -= 1;
        balanceOf[to] += 1;
        emit Transfer(from, to, tokenId);
    }
}
