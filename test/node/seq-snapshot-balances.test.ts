/**
 * A flashblock's `new_account_balances` against the state its snapshot's root commits to (a real in-process node,
 * 1 s blocks, 100 ms flashblocks, transfers among dev accounts and fresh recipients over several flashblocks):
 * every balance the message reports is the one at the snapshot's state root, and every sender or recipient whose
 * balance differs there from the parent block's is reported. The sequencer reads these balances from the block
 * builder's state rather than through the snapshot's trie; this holds the two together.
 */
import { type Hex, hexToBytes } from "viem";
import { describe, expect, it } from "vitest";
import { fromHex, toHexRaw } from "../../src/chain/index.js";
import { signEip1559 } from "../../src/load/signer.js";
import { admitTransaction } from "../../src/node/admission.js";
import type { ChainNode } from "../../src/node/index.js";
import { inProcessNodeForFile } from "./in-process-node.js";

const SENDERS = 6;
const PER_SENDER = 12;

let node: ChainNode;
inProcessNodeForFile(
  "seq-snapshot-balances",
  {
    blockTimeMs: 1000,
    flashblockIntervalMs: 100,
    devAccountCount: SENDERS,
  },
  (opened) => (node = opened),
);

describe("flashblock balances", () => {
  it("reports each touched account's balance at the snapshot's state root", async () => {
    const recipients = Array.from(
      { length: 4 },
      (_, i) => `0x${(0xbeef00 + i).toString(16).padStart(40, "0")}`,
    );
    const watched = [...node.devAccounts.map((a) => a.address.toLowerCase()), ...recipients];
    const problems: string[] = [];
    let checked = 0;
    let reported = 0;
    node.producer.onSnapshot((p) => {
      checked++;
      const parent = node.producer.headView;
      const got = p.message.metadata.new_account_balances;
      for (const [address, balance] of Object.entries(got)) {
        reported++;
        const atRoot = p.view.balance(fromHex(address));
        if (BigInt(balance) !== atRoot)
          problems.push(
            `block ${p.snapshot.header.number} index ${p.index}: ${address} ${balance} != ${atRoot}`,
          );
      }
      for (const address of watched) {
        const bytes = fromHex(address);
        if (p.view.balance(bytes) !== parent.balance(bytes) && got[address] === undefined)
          problems.push(
            `block ${p.snapshot.header.number} index ${p.index}: ${address} changed, not reported`,
          );
      }
    });
    const sealedHashes = new Set<string>();
    const wanted = new Set<string>();
    const allSealed = new Promise<void>((resolve) =>
      node.producer.onSealed((b) => {
        for (const h of b.transactionHashes) sealedHashes.add(toHexRaw(h));
        if ([...wanted].every((h) => sealedHashes.has(h)) && wanted.size === SENDERS * PER_SENDER) resolve();
      }),
    );
    node.start();
    // Sent a few at a time so the block's transactions (and its touched accounts) arrive over several flashblocks.
    for (let nonce = 0n; nonce < BigInt(PER_SENDER); nonce++) {
      for (const [i, account] of node.devAccounts.entries()) {
        const signed = await signEip1559(account.privateKey as Hex, {
          chainId: 901,
          nonce,
          maxPriorityFeePerGas: 1_000_000n,
          maxFeePerGas: 100_000_000_000n,
          gas: 21_000n,
          to: recipients[(i + Number(nonce)) % recipients.length] as Hex,
          value: 1000n + BigInt(i) * 7n + nonce,
          data: "0x",
        });
        wanted.add(admitTransaction(node, hexToBytes(signed.raw)).hashHex);
      }
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    await allSealed;
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(5);
    // Senders, recipients and the fee vaults: far more than the block's deposits alone report.
    expect(reported).toBeGreaterThan(SENDERS + recipients.length);
  }, 120_000);
});
