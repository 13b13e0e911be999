/**
 * `npm run bench:rpc-codecs`: throughput of the generated JSON-RPC codecs on the node's hot paths
 * (a full block with 500 transactions as eth_getBlockByNumber returns it, and eth_getBalance params).
 */
import fc from "fast-check";
import { eth_getBalance, eth_getBlockByNumber } from "../../generated/rpc/index.js";
import * as A from "./arbitraries.js";

function measure(label: string, iterations: number, run: () => void): void {
  for (let i = 0; i < Math.min(iterations, 20); i++) run(); // warm up
  const start = performance.now();
  for (let i = 0; i < iterations; i++) run();
  const ms = (performance.now() - start) / iterations;
  console.log(
    `${label.padEnd(48)} ${ms.toFixed(3).padStart(9)} ms/op ${Math.round(1000 / ms)
      .toString()
      .padStart(9)} op/s`,
  );
}

const transactions = fc.sample(A.transaction(), { numRuns: 500, seed: 1 });
const [block] = fc.sample(A.block(fc.constant(transactions)), { numRuns: 1, seed: 2 });
if (block === undefined) throw new Error("no block sample");
const json = JSON.stringify(eth_getBlockByNumber.encodeResult(block));
const parsed: unknown = JSON.parse(json);
console.log(
  `block: ${transactions.length} full transactions, ${(json.length / 1024).toFixed(0)} KiB of JSON`,
);

measure("eth_getBlockByNumber encodeResult + stringify", 100, () => {
  JSON.stringify(eth_getBlockByNumber.encodeResult(block));
});
measure("eth_getBlockByNumber parse + decodeResult", 100, () => {
  eth_getBlockByNumber.decodeResult(JSON.parse(json));
});
measure("eth_getBlockByNumber decodeResult (parsed)", 100, () => {
  eth_getBlockByNumber.decodeResult(parsed);
});
const balanceParams = [`0x${"11".repeat(20)}`, "pending"];
measure("eth_getBalance decodeParams", 200_000, () => {
  eth_getBalance.decodeParams(balanceParams);
});
measure("eth_getBalance encodeResult", 200_000, () => {
  eth_getBalance.encodeResult(123_456_789_000_000_000_000n);
});
