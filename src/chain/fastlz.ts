/**
 * Length of the FastLZ (level 1) compression of `input`, as OP Fjord defines it for the
 * L1 data-fee size estimate (the same algorithm as Solady's LibZip.flzCompress, counting
 * output bytes only). Integer arithmetic is 32-bit unsigned throughout.
 */
export function fastLzCompressedLength(input: Uint8Array): number {
  const len = input.length;
  let n = 0;
  const table = new Uint32Array(8192);
  const u24 = (i: number): number => input[i]! | (input[i + 1]! << 8) | (input[i + 2]! << 16);
  const hash = (v: number): number => (Math.imul(2654435769 | 0, v) >>> 19) & 0x1fff;
  const literals = (count: number): void => {
    n += 0x21 * Math.floor(count / 0x20);
    const rest = count % 0x20;
    if (rest !== 0) n += rest + 1;
  };
  const match = (length: number): void => {
    const l = length - 1;
    n += 3 * Math.floor(l / 262);
    n += l % 262 >= 6 ? 3 : 2;
  };
  // Counts equal bytes from p and q up to `end`; like the reference, a mismatch still counts
  // the mismatching byte (the loop increments once more before stopping).
  const matchLength = (p: number, q: number, end: number): number => {
    let l = 0;
    const limit = end - q;
    while (l < limit) {
      if (input[p + l] !== input[q + l]) return l + 1;
      l++;
    }
    return l;
  };
  let anchor = 0;
  const ipLimit = len < 13 ? 0 : len - 13;
  let ip = anchor + 2;
  while (ip < ipLimit) {
    let ref: number;
    let distance: number;
    for (;;) {
      const seq = u24(ip);
      const h = hash(seq);
      ref = table[h]!;
      table[h] = ip;
      distance = ip - ref;
      if (ip >= ipLimit) break;
      ip++;
      if (distance <= 0x1fff && seq === u24(ref)) break;
    }
    if (ip >= ipLimit) break;
    ip--;
    if (ip > anchor) literals(ip - anchor);
    const l = matchLength(ref + 3, ip + 3, ipLimit + 9);
    match(l);
    ip += l;
    table[hash(u24(ip))] = ip;
    ip++;
    table[hash(u24(ip))] = ip;
    ip++;
    anchor = ip;
  }
  literals(len - anchor);
  return n;
}
