/**
 * `npm run deposit`: one L1 → L2 deposit through the devnet's DepositPortal with viem's OP Stack actions
 * (`viem/op-stack`: depositTransaction on L1, getL2TransactionHashes from its receipt), then waits for the deposit
 * transaction on L2 and prints one JSON line (docs/devnet.md "Deposits"). The key comes from DEPOSIT_PRIVATE_KEY,
 * never argv; without it, development account 0 (public test mnemonic) deposits.
 */
import { parseArgs } from "node:util";
import {
  type Address,
  type Hex,
  createPublicClient,
  createWalletClient,
  formatEther,
  getAddress,
  http,
  isAddress,
  isHex,
  parseEther,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { depositTransaction, getL2TransactionHashes } from "viem/op-stack";
import { l1ContractAddresses } from "../../contracts/index.js";
import { devnetAccount } from "./accounts.js";
import { runCli } from "./cli.js";
import { DepositNotIncludedError, DevnetUsageError } from "./errors.js";

const USAGE = `Usage: npm run -s deposit -- [options]

Deposits ETH (and optionally a call) from L1 to L2 through the devnet's DepositPortal with viem's OP Stack actions,
waits until the deposit transaction is in an L2 block, and prints one JSON line.

Options (each has an environment variable):
  --l1-rpc-url <url>   DEPOSIT_L1_RPC_URL   the devnet's L1 (default http://127.0.0.1:8546)
  --l2-rpc-url <url>   DEPOSIT_L2_RPC_URL   the devnet's L2 node (default http://127.0.0.1:8545)
  --portal <address>   DEPOSIT_PORTAL       DepositPortal (default the devnet's, deployed by account 0)
  --to <address>       DEPOSIT_TO           L2 recipient (default the sender)
  --mint <ether>       DEPOSIT_MINT         ETH taken on L1 and minted on L2 (default 1)
  --value <ether>      DEPOSIT_VALUE        ETH the L2 call sends, from the minted ETH (default: the mint)
  --data <hex>         DEPOSIT_DATA         L2 call data (default 0x)
  --gas <n>            DEPOSIT_GAS          L2 gas limit (default 100000)
  --timeout-s <s>      DEPOSIT_TIMEOUT_S    how long to wait for the L2 transaction (default 300)
  -h, --help           this text
The key is DEPOSIT_PRIVATE_KEY (default: development account 0; never use it on a real network).
`;

interface DepositConfig {
  l1RpcUrl: string;
  l2RpcUrl: string;
  portal: Address;
  to: Address | undefined;
  mint: bigint;
  value: bigint | undefined;
  data: Hex;
  gas: bigint;
  timeoutMs: number;
  key: Hex;
}

function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): DepositConfig | "help" {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      "l1-rpc-url": { type: "string" },
      "l2-rpc-url": { type: "string" },
      portal: { type: "string" },
      to: { type: "string" },
      mint: { type: "string" },
      value: { type: "string" },
      data: { type: "string" },
      gas: { type: "string" },
      "timeout-s": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help === true) return "help";
  const address = (text: string | undefined, flag: string): Address | undefined => {
    if (text === undefined) return undefined;
    if (!isAddress(text, { strict: false }))
      throw new DevnetUsageError(`${flag} must be an address, got ${text}`);
    return getAddress(text);
  };
  const ether = (text: string, flag: string): bigint => {
    if (!/^\d+(\.\d{1,18})?$/.test(text))
      throw new DevnetUsageError(`${flag} must be an amount of ether, got ${text}`);
    return parseEther(text);
  };
  const integer = (text: string, flag: string): number => {
    if (!/^\d+$/.test(text) || Number(text) < 1)
      throw new DevnetUsageError(`${flag} must be a positive integer`);
    return Number(text);
  };
  const data = values.data ?? env.DEPOSIT_DATA ?? "0x";
  if (!isHex(data)) throw new DevnetUsageError(`--data must be 0x-prefixed hex, got ${data}`);
  const key = env.DEPOSIT_PRIVATE_KEY ?? devnetAccount("deployer").privateKey;
  if (!/^0x[0-9a-fA-F]{64}$/.test(key))
    throw new DevnetUsageError("DEPOSIT_PRIVATE_KEY must be a 32-byte 0x key");
  const value = values.value ?? env.DEPOSIT_VALUE;
  return {
    l1RpcUrl: values["l1-rpc-url"] ?? env.DEPOSIT_L1_RPC_URL ?? "http://127.0.0.1:8546",
    l2RpcUrl: values["l2-rpc-url"] ?? env.DEPOSIT_L2_RPC_URL ?? "http://127.0.0.1:8545",
    portal:
      address(values.portal ?? env.DEPOSIT_PORTAL, "--portal") ??
      l1ContractAddresses(getAddress(devnetAccount("deployer").address), 0).depositPortal,
    to: address(values.to ?? env.DEPOSIT_TO, "--to"),
    mint: ether(values.mint ?? env.DEPOSIT_MINT ?? "1", "--mint"),
    value: value === undefined ? undefined : ether(value, "--value"),
    data,
    gas: BigInt(integer(values.gas ?? env.DEPOSIT_GAS ?? "100000", "--gas")),
    timeoutMs: integer(values["timeout-s"] ?? env.DEPOSIT_TIMEOUT_S ?? "300", "--timeout-s") * 1000,
    key: key as Hex,
  };
}

async function deposit(config: DepositConfig): Promise<number> {
  const account = privateKeyToAccount(config.key);
  const l1 = createPublicClient({ transport: http(config.l1RpcUrl), pollingInterval: 500 });
  const chain = { id: await l1.getChainId() } as const;
  const wallet = createWalletClient({
    account,
    chain: {
      ...chain,
      name: "devnet L1",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [config.l1RpcUrl] } },
    },
    transport: http(config.l1RpcUrl),
  });
  const to = config.to ?? account.address;
  const value = config.value ?? config.mint;
  const l1TxHash = await depositTransaction(wallet, {
    request: { to, mint: config.mint, value, gas: config.gas, data: config.data },
    portalAddress: config.portal,
  });
  const l1Receipt = await l1.waitForTransactionReceipt({ hash: l1TxHash });
  const [l2TxHash] = getL2TransactionHashes(l1Receipt);
  if (l2TxHash === undefined) throw new DevnetUsageError(`${l1TxHash} emitted no TransactionDeposited event`);
  const l2 = createPublicClient({ transport: http(config.l2RpcUrl), pollingInterval: 500 });
  const l2Receipt = await l2
    .waitForTransactionReceipt({ hash: l2TxHash, timeout: config.timeoutMs })
    .catch((e: unknown) => {
      throw new DepositNotIncludedError(
        `deposit ${l2TxHash} (L1 transaction ${l1TxHash}) not on L2 after ${config.timeoutMs} ms`,
        { l1TxHash, l2TxHash, timeoutMs: config.timeoutMs, cause: String(e) },
      );
    });
  // The receipt may be a pre-confirmed one (flashblocks): wait until its block is sealed.
  for (;;) {
    const block = await l2.getBlock({ blockTag: "latest" });
    if (block.number >= l2Receipt.blockNumber) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  process.stdout.write(
    `${JSON.stringify({
      msg: "deposit included",
      from: account.address,
      to,
      mint: formatEther(config.mint),
      value: formatEther(value),
      l1TxHash,
      l1Block: Number(l1Receipt.blockNumber),
      l2TxHash,
      l2Block: Number(l2Receipt.blockNumber),
      l2Status: l2Receipt.status,
    })}\n`,
  );
  return 0;
}

runCli({ usage: USAGE, parse: parseConfig, run: deposit, failurePrefix: "deposit failed" });
