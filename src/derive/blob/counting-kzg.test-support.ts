/** A Kzg over the process's KZG backend that counts the commitments it computes (tests of what a Kzg remembers). */
import { loadEthKzg } from "../../chain/index.js";
import { Kzg } from "./kzg.js";

export async function countingKzg(): Promise<{ readonly kzg: Kzg; readonly commitments: () => number }> {
  let commitments = 0;
  const backend = await loadEthKzg();
  const counting = new Proxy(backend, {
    get: (target, property) =>
      property === "blobToKzgCommitment"
        ? (blob: Uint8Array) => {
            commitments += 1;
            return target.blobToKzgCommitment(blob);
          }
        : Reflect.get(target, property),
  });
  return { kzg: new Kzg(counting), commitments: () => commitments };
}
