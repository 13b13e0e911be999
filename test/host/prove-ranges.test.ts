/**
 * prover_prove over ranges of the L1-backed chain, through the real host and local-mode enclave processes
 * (test/support/prover-chain.ts through test/proof/prove-chain.ts), one chain for the whole file (1 s L1 and L2 blocks):
 * - ranges of 1, 2, 10 and 20 blocks with intermediate intervals 1, 2, 5 and 10, all from block A, each proven as
 *   soon as the safe head covers it (the proofs overlap the chain's growth):
 *   the per-block proposals chain from the agreed root to the claim, every root is the node's
 *   optimism_outputAtBlock, every signature (per block and aggregate) recovers to the enclave's signer over a
 *   journal rebuilt here with viem's encodePacked (not src/proof/onchain's packer);
 * - each multi-block aggregate is accepted by AggregateVerifier.propose on the L1 (v + 27) and by TEEVerifier.verify;
 *   a tampered root, an unregistered signer and another image hash are refused;
 * - a second host run with --witness-run program (executing the range itself, where the set-up's host forwards the
 *   node's block witnesses) proves the 10-block range to the same result, byte for byte;
 * - a range across the L1 epoch that brought a user deposit (DepositPortal) and a gas limit change (SystemConfig)
 *   proves, each root the node's;
 * - a wrong claimed root is refused at the witness, before any enclave, nothing signed.
 */
import {
  type Account,
  type Address,
  BaseError,
  concatHex,
  ContractFunctionRevertedError,
  createWalletClient,
  encodePacked,
  type Hex,
  http,
  keccak256,
  numberToHex,
  parseEther,
  recoverAddress,
  zeroHash,
} from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  aggregateVerifierAbi,
  deployProofVerifiers,
  depositPortalAbi,
  type ProofVerifiersDeployment,
  systemConfigAbi,
  teeProverRegistryAbi,
  teeVerifierAbi,
} from "../../contracts/index.js";
import { devAccounts } from "../../src/chain/index.js";
import { DEVNET_L1_MNEMONIC } from "../../src/devnet/l1/anvil.js";
import {
  type ProposalJson,
  type ProveChain,
  type ProveResultJson,
  type RangeRequest,
  rpc,
  RpcCallError,
  startProveChain,
  until,
} from "../proof/prove-chain.js";
import type { L1Chain } from "../node/l1-chain.js";

const owner = mnemonicToAccount(DEVNET_L1_MNEMONIC, { addressIndex: 0 });
const proposer = mnemonicToAccount(DEVNET_L1_MNEMONIC, { addressIndex: 5 });
/** Local-mode enclaves are registered under the zero image hash (the devnet's). */
const LOCAL_IMAGE: Hex = zeroHash;
const OTHER_IMAGE: Hex = keccak256(new TextEncoder().encode("another enclave image"));
const NEW_GAS_LIMIT = 45_000_000n;

/**
 * The ranges proven: (agreed, claimed] with the interval, all from block A (ranges that overlap rather than follow
 * each other: the chain needs 20 blocks past A, not 33). Each interval once, each multi-block aggregate with more
 * than one sampled root but the 2-block one; a longer range would only prove more blocks of the same kind.
 */
const A = 2;
const RANGES = [
  { blocks: 1, interval: 1, agreed: A },
  { blocks: 2, interval: 2, agreed: A },
  { blocks: 10, interval: 5, agreed: A },
  { blocks: 20, interval: 10, agreed: A },
] as const;

let p: ProveChain;
let configHash: Hex;
/** The L2 block holding the user deposit, and the first block with the new gas limit. */
let depositBlock: number;
let gasLimitBlock: number;
const proven = new Map<string, { request: RangeRequest; result: ProveResultJson }>();

const walletOn = (chain: L1Chain, account: Account) =>
  createWalletClient({ account, chain: chain.l1.anvil.chain, transport: http(chain.l1.anvil.rpcUrl) });
const wallet = (account: Account) => walletOn(p.prover.chain, account);

/** A user deposit of 0.5 ETH through the portal, from `depositor` to itself. */
const depositVia = (chain: L1Chain, depositor: Account) =>
  walletOn(chain, depositor).writeContract({
    address: chain.l1.deployment.depositPortal,
    abi: depositPortalAbi,
    functionName: "depositTransaction",
    args: [depositor.address, parseEther("0.5"), 100_000n, false, "0x"],
    value: parseEther("1"),
  });

async function send(
  account: Account,
  address: Address,
  abi: readonly unknown[],
  name: string,
  args: unknown[],
) {
  const { request } = await p.prover.chain.l1.anvil.client.simulateContract({
    address,
    abi,
    functionName: name,
    args,
    account,
  } as never);
  const hash = await wallet(account).writeContract(request as never);
  const receipt = await p.prover.chain.l1.anvil.client.waitForTransactionReceipt({
    hash,
    pollingInterval: 100,
  });
  expect(receipt.status).toBe("success");
  return receipt;
}

/** The custom error a simulated call reverts with, e.g. `InvalidSigner`; undefined when it succeeds. */
async function revertOf(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
    return undefined;
  } catch (e) {
    const reverted =
      e instanceof BaseError ? e.walk((x) => x instanceof ContractFunctionRevertedError) : null;
    if (reverted instanceof ContractFunctionRevertedError && reverted.data?.errorName !== undefined)
      return reverted.data.errorName;
    throw e;
  }
}

/** The packed journal's digest, rebuilt from the request and the node's roots (docs/contracts.md "The journal"). */
function journalDigest(
  request: RangeRequest,
  j: { prev: Hex; start: number; root: Hex; end: number; intermediate: Hex[] },
  imageHash: Hex = LOCAL_IMAGE,
): Hex {
  return keccak256(
    encodePacked(
      ["address", "bytes32", "bytes32", "uint64", "bytes32", "uint64", "bytes32[]", "bytes32", "bytes32"],
      [
        proposer.address,
        request.l1Head.hash,
        j.prev,
        BigInt(j.start),
        j.root,
        BigInt(j.end),
        j.intermediate,
        configHash,
        imageHash,
      ],
    ),
  );
}

/** The roots at agreed + k·interval, k = 1 … blocks / interval (the interval divides every range here). */
function sampled(request: RangeRequest): Hex[] {
  const out: Hex[] = [];
  for (let k = 1; k * request.interval <= request.claimed - request.agreed; k++)
    out.push(request.roots[k * request.interval - 1]!);
  return out;
}

function aggregateDigest(request: RangeRequest, imageHash: Hex = LOCAL_IMAGE): Hex {
  return journalDigest(
    request,
    {
      prev: request.agreedRoot,
      start: request.agreed,
      root: request.roots.at(-1)!,
      end: request.claimed,
      intermediate: sampled(request),
    },
    imageHash,
  );
}

/** The enclave's 0/1 recovery id made 27/28, as the proposer submits it. */
function v27(signature: Hex): Hex {
  const v = Number.parseInt(signature.slice(130), 16);
  expect([0, 1]).toContain(v);
  return concatHex([signature.slice(0, 130) as Hex, numberToHex(v + 27, { size: 1 })]);
}

/** Checks a result against the node and the enclave's signer; returns nothing, throws on any mismatch. */
async function checkResult(request: RangeRequest, result: ProveResultJson): Promise<void> {
  const { proposals, aggregate_proposal: aggregate } = result.Tee;
  const signer = p.prover.enclaveSigner;
  expect(proposals.map((x) => x.output_root)).toEqual(request.roots);
  let prev = request.agreedRoot;
  for (const [i, proposal] of proposals.entries()) {
    const end = request.agreed + i + 1;
    expect(proposal.prev_output_root).toBe(prev);
    expect(proposal.l2_block_number).toBe(end);
    expect(proposal.l1_origin_hash).toBe(request.l1Head.hash);
    expect(proposal.l1_origin_number).toBe(Number(request.l1Head.number));
    expect(proposal.config_hash).toBe(configHash);
    const digest = journalDigest(request, {
      prev,
      start: end - 1,
      root: proposal.output_root,
      end,
      intermediate: [],
    });
    expect(await recoverAddress({ hash: digest, signature: proposal.signature })).toBe(signer);
    prev = proposal.output_root;
  }
  expect(prev).toBe(request.params.claimed_l2_output_root);
  if (proposals.length === 1) {
    expect(aggregate).toEqual(proposals[0]);
    return;
  }
  expect(aggregate.output_root).toBe(request.roots.at(-1));
  expect(aggregate.prev_output_root).toBe(request.agreedRoot);
  expect(aggregate.l2_block_number).toBe(request.claimed);
  expect(await recoverAddress({ hash: aggregateDigest(request), signature: aggregate.signature })).toBe(
    signer,
  );
}

/**
 * The verifier sets the tests propose to, deployed by account 1 (its own nonces) in the background while the ranges
 * are proven: per multi-block range ("blocks/interval") an AggregateVerifier with block interval = its length,
 * anchored at block A and the node's root there, and a second one for the 10-block range ("refusals") that nothing
 * is proposed to before the refusal test.
 */
let verifiers: Promise<Map<string, ProofVerifiersDeployment>>;

async function deployVerifiers(): Promise<Map<string, ProofVerifiersDeployment>> {
  const anchorRoot = (await p.output(A)).outputRoot;
  const deployer = mnemonicToAccount(DEVNET_L1_MNEMONIC, { addressIndex: 1 });
  const sets = [
    ...RANGES.filter((r) => r.blocks > 1).map((r) => [`${r.blocks}/${r.interval}`, r] as const),
    ["refusals", RANGES.find((r) => r.blocks === 10)!] as const,
  ];
  const deployed = new Map<string, ProofVerifiersDeployment>();
  for (const [name, range] of sets) {
    deployed.set(
      name,
      await deployProofVerifiers(
        { publicClient: p.prover.chain.l1.anvil.client, walletClient: wallet(deployer) },
        {
          teeProverRegistry: p.prover.chain.l1.deployment.teeProverRegistry,
          teeImageHash: LOCAL_IMAGE,
          configHash,
          blockInterval: BigInt(range.blocks),
          intermediateBlockInterval: BigInt(range.interval),
          anchorBlock: BigInt(A),
          anchorRoot,
          pollingIntervalMs: 100,
        },
      ),
    );
  }
  return deployed;
}

/** The verifier set `name` for `request`, whose agreed block and root are its anchor. */
async function verifierFor(name: string, request: RangeRequest): Promise<ProofVerifiersDeployment> {
  const deployment = (await verifiers).get(name)!;
  expect(request.agreed).toBe(A);
  expect(
    await p.prover.chain.l1.anvil.client.readContract({
      address: deployment.aggregateVerifier,
      abi: aggregateVerifierAbi,
      functionName: "ANCHOR_ROOT",
    }),
  ).toBe(request.agreedRoot);
  return deployment;
}

/** AggregateVerifier.propose's proof: type 0 ‖ l1OriginHash ‖ uint256 l1OriginNumber ‖ r‖s‖v (v 27/28). */
function proposalProof(
  request: RangeRequest,
  aggregate: ProposalJson,
  signature: Hex = v27(aggregate.signature),
) {
  return concatHex([
    "0x00",
    request.l1Head.hash,
    numberToHex(request.l1Head.number, { size: 32 }),
    signature,
  ]);
}

const avAbi = [...aggregateVerifierAbi, ...teeVerifierAbi.filter((item) => item.type === "error")];

function simulatePropose(verifier: Address, request: RangeRequest, roots: Hex[], proof: Hex) {
  return p.prover.chain.l1.anvil.client.simulateContract({
    address: verifier,
    abi: avAbi,
    functionName: "propose",
    args: [BigInt(request.claimed), roots.at(-1)!, roots, proof],
    account: proposer,
  });
}

beforeAll(async () => {
  // The set-up puts account 5 (the proposer) on the registry's list and registers the enclave's signer under the
  // local image hash through the registrar. While its processes start, on L1: a deposit through the portal and a
  // gas limit change; the L2 block that adopts their L1 block as its origin starts an epoch with the user deposit
  // and the new gas limit.
  p = await startProveChain({
    onL1: async (chain) => {
      const depositor = privateKeyToAccount(devAccounts(7)[6]!.privateKey);
      const client = chain.l1.anvil.client;
      const receipts = await Promise.all([
        depositVia(chain, depositor).then((hash) =>
          client.waitForTransactionReceipt({ hash, pollingInterval: 100 }),
        ),
        walletOn(chain, owner)
          .writeContract({
            address: chain.l1.deployment.systemConfig,
            abi: systemConfigAbi,
            functionName: "setGasLimit",
            args: [NEW_GAS_LIMIT],
          })
          .then((hash) => client.waitForTransactionReceipt({ hash, pollingInterval: 100 })),
      ]);
      for (const receipt of receipts) expect(receipt.status).toBe("success");
    },
  });
  configHash = p.prover.configHash;
  verifiers = deployVerifiers();
  // Awaited by the tests that use them; never an unhandled rejection meanwhile.
  verifiers.catch(() => undefined);
  const block = (n: number) =>
    rpc<{ transactions: { type: Hex }[]; gasLimit: Hex } | null>(
      p.prover.chain.node.url,
      "eth_getBlockByNumber",
      [`0x${n.toString(16)}`, true],
    );
  // Scan sealed blocks for the user deposit (a second 0x7e transaction) and the first block with the new limit.
  let scanned = 1;
  const found: { deposit?: number; gas?: number } = {};
  await until(
    "the deposit and the gas limit change on L2",
    async () => {
      for (let b = await block(scanned); b !== null; b = await block(scanned)) {
        if (found.deposit === undefined && b.transactions.filter((tx) => tx.type === "0x7e").length >= 2)
          found.deposit = scanned;
        if (found.gas === undefined && BigInt(b.gasLimit) === NEW_GAS_LIMIT) found.gas = scanned;
        scanned++;
      }
      return found.deposit !== undefined && found.gas !== undefined ? true : undefined;
    },
    300_000,
  );
  depositBlock = found.deposit!;
  gasLimitBlock = found.gas!;
}, 1_200_000);

afterAll(async () => {
  await p?.stop();
});

describe("prover_prove over ranges of the L1-backed chain", () => {
  it.each(RANGES)(
    "a range of $blocks blocks with interval $interval: roots chain to the claim, signatures recover to the enclave",
    async ({ blocks, interval, agreed }) => {
      await p.prover.waitForSafe(BigInt(agreed + blocks));
      const request = await p.rangeRequest(agreed, agreed + blocks, interval, proposer.address);
      const result = await p.prove(request);
      await checkResult(request, result);
      proven.set(`${blocks}/${interval}`, { request, result });
    },
    900_000,
  );

  it("a host with --witness-run program (it executes the range itself) proves the 10-block range to the same result", async () => {
    // The set-up's host forwards the node's block witnesses (the default); this one sends what its own run read.
    const { request, result } = proven.get("10/5")!;
    const enclave = p.prover.enclave.address;
    if (enclave.kind !== "unix") throw new Error("expected a Unix socket enclave");
    const host = await p.startHostFor(enclave.path, ["--witness-run", "program"]);
    const again = await p.prove(request, host.url);
    // ECDSA signatures are deterministic (RFC 6979): the same journals give the same bytes.
    expect(again).toEqual(result);
    expect(host.logs.find((line) => line.msg === "witness strategy")).toMatchObject({
      strategy: "execute-payload",
      run: "program",
    });
    const executions = host.logs.filter((line) => line.msg === "witness collected").map((l) => l.execution);
    expect(executions).toEqual(["sequential"]);
    // The set-up's host, on the default, forwarded every range it proved.
    const setup = p.prover.host()!.logs.filter((line) => line.msg === "witness collected");
    expect(setup.length).toBeGreaterThanOrEqual(RANGES.length);
    expect(setup.map((line) => line.execution)).toEqual(setup.map(() => "forwarded"));
  }, 900_000);

  it("AggregateVerifier.propose accepts each multi-block aggregate (v + 27), TEEVerifier.verify too", async () => {
    const multi = [...proven.values()].filter(({ request }) => request.claimed - request.agreed > 1);
    expect(multi.length).toBe(RANGES.filter((r) => r.blocks > 1).length);
    for (const { request, result } of multi) {
      const aggregate = result.Tee.aggregate_proposal;
      const { teeVerifier, aggregateVerifier } = await verifierFor(
        `${request.claimed - request.agreed}/${request.interval}`,
        request,
      );
      expect(
        await p.prover.chain.l1.anvil.client.readContract({
          address: teeVerifier,
          abi: teeVerifierAbi,
          functionName: "verify",
          args: [
            concatHex([proposer.address, v27(aggregate.signature)]),
            LOCAL_IMAGE,
            aggregateDigest(request),
          ],
        }),
      ).toBe(true);
      const roots = sampled(request);
      await send(proposer, aggregateVerifier, avAbi, "propose", [
        BigInt(request.claimed),
        roots.at(-1)!,
        roots,
        proposalProof(request, aggregate),
      ]);
      expect(
        await p.prover.chain.l1.anvil.client.readContract({
          address: aggregateVerifier,
          abi: aggregateVerifierAbi,
          functionName: "proposalAt",
          args: [BigInt(request.agreed), BigInt(request.claimed)],
        }),
      ).toBe(1n);
    }
  }, 600_000);

  it("refuses a tampered root, an unregistered signer and another image hash", async () => {
    const { request, result } = proven.get("10/5")!;
    const aggregate = result.Tee.aggregate_proposal;
    const { teeVerifier, aggregateVerifier } = await verifierFor("refusals", request);
    const roots = sampled(request);
    const verify = (signature: Hex, imageId: Hex, digest: Hex) =>
      p.prover.chain.l1.anvil.client.readContract({
        address: teeVerifier,
        abi: teeVerifierAbi,
        functionName: "verify",
        args: [concatHex([proposer.address, signature]), imageId, digest],
      });
    // The enclave's proposal is accepted as is (the control), refused with a changed claimed root.
    expect(
      await revertOf(simulatePropose(aggregateVerifier, request, roots, proposalProof(request, aggregate))),
    ).toBe(undefined);
    const tampered = [...roots.slice(0, -1), keccak256(roots.at(-1)!)];
    expect(
      await revertOf(
        simulatePropose(aggregateVerifier, request, tampered, proposalProof(request, aggregate)),
      ),
    ).toBe("InvalidSigner");
    // A key the registry does not know signs the right journal.
    const stranger = privateKeyToAccount(generatePrivateKey());
    const strangerSig = await stranger.sign({ hash: aggregateDigest(request) });
    expect(await revertOf(verify(strangerSig, LOCAL_IMAGE, aggregateDigest(request)))).toBe("InvalidSigner");
    expect(
      await revertOf(
        simulatePropose(aggregateVerifier, request, roots, proposalProof(request, aggregate, strangerSig)),
      ),
    ).toBe("InvalidSigner");
    // The enclave's signature is not one of another image; a signer registered under another image is refused here.
    expect(await revertOf(verify(v27(aggregate.signature), OTHER_IMAGE, aggregateDigest(request)))).toBe(
      "ImageIdMismatch",
    );
    const otherEnclave = privateKeyToAccount(generatePrivateKey());
    await send(
      owner,
      p.prover.chain.l1.deployment.teeProverRegistry,
      teeProverRegistryAbi,
      "registerSigner",
      [otherEnclave.address, OTHER_IMAGE],
    );
    const otherSig = await otherEnclave.sign({ hash: aggregateDigest(request) });
    expect(await revertOf(verify(otherSig, LOCAL_IMAGE, aggregateDigest(request)))).toBe("ImageIdMismatch");
    expect(
      await revertOf(
        simulatePropose(aggregateVerifier, request, roots, proposalProof(request, aggregate, otherSig)),
      ),
    ).toBe("ImageIdMismatch");
  }, 600_000);

  it("proves a range across the L1 epoch that brought a user deposit and a gas limit change", async () => {
    // A user deposit is only in the first block of an epoch: (deposit − 2, …] crosses from the previous epoch.
    const first = Math.min(depositBlock, gasLimitBlock);
    const last = Math.max(depositBlock, gasLimitBlock) + 1;
    await p.prover.waitForSafe(BigInt(last));
    const request = await p.rangeRequest(first - 2, last, 1, proposer.address);
    const gasLimit = async (n: number) =>
      BigInt(
        (
          await rpc<{ gasLimit: Hex }>(p.prover.chain.node.url, "eth_getBlockByNumber", [
            `0x${n.toString(16)}`,
            false,
          ])
        ).gasLimit,
      );
    expect(await gasLimit(request.agreed)).not.toBe(NEW_GAS_LIMIT);
    expect(await gasLimit(request.claimed)).toBe(NEW_GAS_LIMIT);
    const result = await p.prove(request);
    await checkResult(request, result);
  }, 900_000);

  it("refuses a wrong claimed root at the witness, before any enclave, nothing signed", async () => {
    const proves = () =>
      p.prover.enclave.logs.filter((line) => line.msg === "request served" && line.request === "Prove")
        .length;
    const before = proves();
    const request = await p.rangeRequest(A, A + 3, 1, proposer.address);
    const failure = await p
      .prove({ ...request, params: { ...request.params, claimed_l2_output_root: `0x${"ab".repeat(32)}` } })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(RpcCallError);
    expect((failure as RpcCallError).code).toBe(-32000);
    expect((failure as RpcCallError).message).toMatch(
      new RegExp(`re-executed output root at block ${A + 3} differs from the claimed root`),
    );
    expect(proves()).toBe(before);
  }, 600_000);
});
