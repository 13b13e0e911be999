/**
 * The slice of the EIP-3009 token ABI this library uses (USDC v2.2 compatible), in viem's
 * human-readable form so calls and logs are fully typed. `abi.test.ts` checks every entry against
 * the compiled `contracts/artifacts/Eip3009Token.json`.
 */
import { parseAbi } from "viem";

export const eip3009TokenAbi = parseAbi([
  "function name() view returns (string)",
  "function version() pure returns (string)",
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
  "function balanceOf(address account) view returns (uint256)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
  "function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  "function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
  "function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  "function cancelAuthorization(address authorizer, bytes32 nonce, bytes signature)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
  "event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)",
]);

/** EIP-1271: what a contract account answers when it accepts a signature. */
export const erc1271Abi = parseAbi([
  "function isValidSignature(bytes32 digest, bytes signature) view returns (bytes4)",
]);

export const ERC1271_MAGIC_VALUE = "0x1626ba7e";
