/** Test helper: bytes from hand-typed hex pieces (spaces and underscores ignored). */
export function bytes(...pieces: string[]): Uint8Array {
  const hex = pieces.join("").replace(/[\s_]/g, "");
  if (!/^([0-9a-f]{2})*$/i.test(hex)) throw new Error(`bad hex: ${hex}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** `count` copies of one byte, as hex. */
export function repeat(byteHex: string, count: number): string {
  return byteHex.repeat(count);
}
