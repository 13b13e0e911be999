/**
 * Executes one stateless-execution fixture and prints one JSON line:
 * {"block","blockHash","expectedBlockHash","match","gasUsed","stateRoot","outputRoot","ms"}.
 * Exit status 0 only when the block hash matches. Usage: npm run execute-fixture -- <file.json.gz>
 */
import { bytesEqual, executeBlock, fixtureStore, loadFixture, toHex } from "../src/chain/index.js";

async function main(): Promise<number> {
  const path = process.argv[2];
  if (path === undefined || path === "--help" || path === "-h") {
    process.stderr.write("usage: npm run execute-fixture -- <fixture.json.gz>\n");
    return path === undefined ? 2 : 0;
  }
  const fixture = await loadFixture(path);
  const store = fixtureStore(fixture);
  const started = performance.now();
  const block = await executeBlock({
    config: fixture.config,
    parent: fixture.parent,
    attributes: fixture.attributes,
    transactions: fixture.transactions,
    source: store,
  });
  const ms = performance.now() - started;
  const match = bytesEqual(block.blockHash, fixture.expectedBlockHash);
  process.stdout.write(
    `${JSON.stringify({
      block: Number(block.header.number),
      blockHash: toHex(block.blockHash),
      expectedBlockHash: toHex(fixture.expectedBlockHash),
      match,
      gasUsed: Number(block.header.gasUsed),
      stateRoot: toHex(block.stateRoot),
      outputRoot: block.outputRoot === undefined ? null : toHex(block.outputRoot),
      ms: Math.round(ms * 10) / 10,
    })}\n`,
  );
  return match ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}\n`);
    process.exit(1);
  },
);
