import { describe, expect, it } from "vitest";
import {
  OpFork,
  type RollupConfig,
  builtInChain,
  decodeDepositTransaction,
  fromHex,
  keccak256,
  toHex,
  upgradeDepositSourceHash,
} from "../../chain/index.js";
import { KONA_ISTHMUS_UPGRADE_TXS } from "./test/kona-isthmus-upgrade-txs.js";
import {
  createAddress,
  isUpgradeActivationBlock,
  isthmusUpgradeTransactions,
  jovianUpgradeDeposits,
  jovianUpgradeTransactions,
  upgradeToCalldata,
  upgradeTransactionsAt,
} from "./upgrades.js";

describe("Isthmus upgrade deposits", () => {
  it("are kona's eight transactions byte for byte (isthmus_tx_0..7.hex)", () => {
    const ours = isthmusUpgradeTransactions();
    expect(ours).toHaveLength(8);
    ours.forEach((tx, i) => expect(toHex(tx), `isthmus tx ${i}`).toBe(`0x${KONA_ISTHMUS_UPGRADE_TXS[i]}`));
  });

  it("deploy to the addresses kona names (crates/protocol/hardforks/src/isthmus.rs)", () => {
    expect(createAddress(fromHex("4210000000000000000000000000000000000003"))).toEqual(
      fromHex("ff256497d61dcd71a9e9ff43967c13fde1f72d12"),
    );
    expect(createAddress(fromHex("4210000000000000000000000000000000000004"))).toEqual(
      fromHex("93e57a196454cb919193fa9946f14943cf733845"),
    );
    expect(createAddress(fromHex("4210000000000000000000000000000000000005"))).toEqual(
      fromHex("4fa2be8cd41504037f1838bce3bcc93bc68ff537"),
    );
  });

  it("have kona's source hashes", () => {
    // op-rs/kona @ cdb9be24, crates/protocol/hardforks/src/isthmus.rs tests.
    const expected: [string, string][] = [
      ["Isthmus: L1 Block Deployment", "3b2d0821ca2411ad5cd3595804d1213d15737188ae4cbd58aa19c821a6c211bf"],
      [
        "Isthmus: Gas Price Oracle Deployment",
        "fc70b48424763fa3fab9844253b4f8d508f91eb1f7cb11a247c9baec0afb8035",
      ],
      [
        "Isthmus: Operator Fee Vault Deployment",
        "107a570d3db75e6110817eb024f09f3172657e920634111ce9875d08a16daa96",
      ],
      ["Isthmus: L1 Block Proxy Update", "ebe8b5cb10ca47e0d8bda8f5355f2d66711a54ddeb0ef1d30e29418c9bf17a0e"],
      [
        "Isthmus: Gas Price Oracle Proxy Update",
        "ecf2d9161d26c54eda6b7bfdd9142719b1e1199a6e5641468d1bf705bc531ab0",
      ],
      [
        "Isthmus: Operator Fee Vault Proxy Update",
        "ad74e1adb877ccbe176b8fa1cc559388a16e090ddbe8b512f5b37d07d887a927",
      ],
    ];
    for (const [intent, hash] of expected)
      expect(toHex(upgradeDepositSourceHash(intent)), intent).toBe(`0x${hash}`);
    const sourceHashes = isthmusUpgradeTransactions().map((tx) =>
      toHex(decodeDepositTransaction(tx).sourceHash),
    );
    expect(sourceHashes.slice(0, 6)).toEqual(expected.map(([, h]) => `0x${h}`));
  });
});

describe("Jovian upgrade deposits", () => {
  const deposits = jovianUpgradeDeposits();

  it("have kona's source hashes (crates/protocol/hardforks/src/jovian.rs tests, as activated on mainnet)", () => {
    expect(deposits.map((d) => toHex(d.sourceHash))).toEqual([
      "0xbb1a656f65401240fac3db12e7a79ebb954b11e62f7626eb11691539b798d3bf",
      "0xf3275f829340521028f9ad5bce4ecb1c64a45d448794effa2a77674627338e76",
      "0x239b7021a6c2cf3a918481242bbb5a9499057f24501539467536c691bb133962",
      "0xa70c60aa53b8c1c0d52b39b1e901e7d7c09f7819595cb24048a6bb1983b401ff",
      "0xe836db6a959371756f8941be3e962d000f7e12a32e49e2c9ca42ba177a92716c",
    ]);
  });

  it("point the proxies at the new implementations with kona's upgradeTo calldata", () => {
    expect(toHex(deposits[1]!.data)).toBe(
      "0x3659cfe60000000000000000000000003ba4007f5c922fbb33c454b41ea7a1f11e83df2c",
    );
    expect(toHex(deposits[3]!.data)).toBe(
      "0x3659cfe60000000000000000000000004f1db3c6abd250ba86e0928471a8f7db3afd88f1",
    );
    expect(toHex(deposits[4]!.data)).toBe("0xb3d72079"); // setJovian()
    expect(toHex(deposits[1]!.to!)).toBe("0x4200000000000000000000000000000000000015");
    expect(toHex(deposits[3]!.to!)).toBe("0x420000000000000000000000000000000000000f");
  });

  it("use op-node's gas limits and senders, deploy the L1Block with the bytecode op-node ships", () => {
    expect(deposits.map((d) => d.gasLimit)).toEqual([447_315n, 50_000n, 1_750_714n, 50_000n, 90_000n]);
    expect(deposits.map((d) => toHex(d.from))).toEqual([
      "0x4210000000000000000000000000000000000006",
      "0x0000000000000000000000000000000000000000",
      "0x4210000000000000000000000000000000000007",
      "0x0000000000000000000000000000000000000000",
      "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001",
    ]);
    expect(deposits[0]!.to).toBeUndefined();
    expect(deposits[0]!.data.length).toBe(1845);
    // Head and tail of op-node's l1BlockJovianDeploymentBytecode (jovian_upgrade_transactions.go).
    expect(toHex(deposits[0]!.data.slice(0, 16))).toBe("0x608060405234801561001057600080fd");
    expect(toHex(deposits[0]!.data.slice(-8))).toBe("0x6c634300080f000a");
    expect(jovianUpgradeTransactions().map((t) => decodeDepositTransaction(t))).toEqual(deposits);
    expect(upgradeToCalldata(new Uint8Array(20).fill(0x42))).toEqual(
      fromHex(`3659cfe6${"00".repeat(12)}${"42".repeat(20)}`),
    );
    expect(keccak256(new TextEncoder().encode("upgradeTo(address)")).slice(0, 4)).toEqual(
      fromHex("3659cfe6"),
    );
  });
});

describe("upgrade deposits by block", () => {
  const base = builtInChain(8453n).rollupConfig;
  const isthmus = base.forkTimes[OpFork.Isthmus]!;
  const jovian = base.forkTimes[OpFork.Jovian]!;

  it("come only in the activation block of Isthmus or Jovian", () => {
    // Base mainnet's activation times are one second after a block time (genesis + 2k + 1).
    const firstIsthmus = isthmus + ((((base.genesisL2Time - isthmus) % 2n) + 2n) % 2n);
    expect(upgradeTransactionsAt(base, firstIsthmus)).toEqual([...isthmusUpgradeTransactions()]);
    expect(isUpgradeActivationBlock(base, firstIsthmus)).toBe(true);
    expect(upgradeTransactionsAt(base, firstIsthmus + 2n)).toEqual([]);
    expect(upgradeTransactionsAt(base, firstIsthmus - 2n)).toEqual([]);
    const firstJovian = jovian + ((((base.genesisL2Time - jovian) % 2n) + 2n) % 2n);
    expect(upgradeTransactionsAt(base, firstJovian)).toEqual([...jovianUpgradeTransactions()]);
    expect(isUpgradeActivationBlock(base, firstJovian + 2n)).toBe(false);
  });

  it("are Isthmus's then Jovian's when both activate in the same block", () => {
    const both: RollupConfig = {
      ...base,
      forkTimes: { ...base.forkTimes, [OpFork.Isthmus]: 1000n, [OpFork.Jovian]: 1000n },
    };
    expect(upgradeTransactionsAt(both, 1000n)).toEqual([
      ...isthmusUpgradeTransactions(),
      ...jovianUpgradeTransactions(),
    ]);
  });
});
