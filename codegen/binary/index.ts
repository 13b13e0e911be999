/** The binary half of codegen: spec/protocol (host-enclave bincode protocol) and spec/journal (signed journal). */
import { fileURLToPath } from "node:url";
import type { GeneratedFile } from "../files.js";
import { emitJournal } from "./emit-journal.js";
import { emitProtocol } from "./emit-protocol.js";
import { loadJournalLayout } from "./journal-spec.js";
import { loadProtocolSpec } from "./protocol-spec.js";

const specPath = (relative: string) => fileURLToPath(new URL(`../../spec/${relative}`, import.meta.url));

/** Generates generated/protocol/ and generated/journal/ from the two specs. */
export async function generateBinary(): Promise<GeneratedFile[]> {
  const [protocol, journal] = await Promise.all([
    loadProtocolSpec(specPath("protocol/enclave.protocol.json")),
    loadJournalLayout(specPath("journal/journal.layout.json")),
  ]);
  return [...(await emitProtocol(protocol)), ...emitJournal(journal)];
}
