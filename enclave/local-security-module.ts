/** Local mode (development and tests only, started with an explicit --local): OS randomness, no PCR0. */
import { randomBytes } from "node:crypto";
import { LocalAttestor } from "../src/attestation/index.js";
import { type AttestationRequest, checkAttestationRequest, type SecurityModule } from "./security-module.js";

export class LocalSecurityModule implements SecurityModule {
  readonly mode = "local" as const;

  private constructor(private readonly attestor: LocalAttestor) {}

  static async open(): Promise<LocalSecurityModule> {
    return new LocalSecurityModule(await LocalAttestor.create((n) => randomBytes(n)));
  }

  randomBytes(length: number): Uint8Array {
    return new Uint8Array(randomBytes(length));
  }

  pcr0(): null {
    return null;
  }

  async attest(request: AttestationRequest): Promise<Uint8Array> {
    checkAttestationRequest(request);
    return this.attestor.attest(request);
  }
}
