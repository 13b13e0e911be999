/**
 * Whether a file holds one whole JSON object or array, read in fixed chunks without building the value: anvil's
 * state file can grow to many megabytes (blocks, blobs), and this runs at every devnet start. A file torn by a kill
 * during anvil's in-place write is a strict prefix of a document, so its top-level value never closes.
 */
import { closeSync, openSync, readSync } from "node:fs";

const CHUNK = 1 << 16;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * True when the file is one JSON object or array whose brackets balance outside strings, closed exactly once, with
 * only whitespace around it. A structural check, not a validator: it tells a whole file from a torn prefix of one.
 */
export function holdsWholeJsonDocument(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(CHUNK);
    let depth = 0;
    let opened = false;
    let closed = false;
    let inString = false;
    let escaped = false;
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK, null);
      if (read === 0) return closed;
      for (let i = 0; i < read; i++) {
        const byte = buffer[i]!;
        if (inString) {
          if (escaped) escaped = false;
          else if (byte === BACKSLASH) escaped = true;
          else if (byte === QUOTE) inString = false;
          continue;
        }
        if (closed) {
          if (!isWhitespace(byte)) return false;
          continue;
        }
        if (!opened) {
          if (isWhitespace(byte)) continue;
          if (byte !== 0x7b && byte !== 0x5b) return false; // "{" or "["
          opened = true;
          depth = 1;
          continue;
        }
        if (byte === QUOTE) inString = true;
        else if (byte === 0x7b || byte === 0x5b) depth++;
        else if (byte === 0x7d || byte === 0x5d) {
          depth--;
          if (depth === 0) closed = true;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}
