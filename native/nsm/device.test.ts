/**
 * What can be tested without a Nitro enclave: the addon loads, validates its arguments, reports an absent
 * device as a typed error, and runs the real ioctl against a descriptor that is not an NSM device (the
 * kernel answers ENOTTY). /dev/nsm itself is never opened here, even where it exists.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { NitroUnavailableError, openNitroSecurityModule } from "../../enclave/nitro.js";
import { loadAddon } from "../load-addon.js";
import { NsmDevice, NsmDeviceUnavailableError, NsmIoctlError, nsmIoctlNumber } from "./device.js";

interface RawNsmBinding {
  open(path: unknown): number;
  requestSync(fd: unknown, request: unknown): Buffer;
  request(fd: unknown, request: unknown): Promise<Buffer>;
  close(fd: unknown): void;
}

const NSM_PRESENT = existsSync("/dev/nsm");

describe("nsm addon", () => {
  it("uses _IOWR(0x0A, 0, struct nsm_raw) with the 32-byte nsm_raw", () => {
    // dir read|write (3) << 30 | size 32 << 16 | magic 0x0A << 8 | nr 0
    expect(nsmIoctlNumber()).toBe(0xc0200a00);
  });

  it("reports a missing device as NsmDeviceUnavailableError (ENOENT)", () => {
    let caught: unknown;
    try {
      NsmDevice.open("/nonexistent/dev/nsm");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(NsmDeviceUnavailableError);
    expect(caught).toMatchObject({ path: "/nonexistent/dev/nsm", code: "ENOENT" });
  });

  it.skipIf(NSM_PRESENT)(
    "openNitroSecurityModule fails loudly without /dev/nsm, naming the device",
    async () => {
      const attempt = openNitroSecurityModule();
      await expect(attempt).rejects.toThrow(NitroUnavailableError);
      await expect(attempt).rejects.toThrow(/cannot open the NSM device \/dev\/nsm: ENOENT.*--local/);
      const error = await attempt.catch((e: unknown) => e);
      expect((error as Error).cause).toBeInstanceOf(NsmDeviceUnavailableError);
    },
  );

  it("runs the ioctl on a non-NSM descriptor and gets the kernel's ENOTTY as NsmIoctlError", async () => {
    const device = NsmDevice.open("/dev/null");
    try {
      expect(() => device.getRandomSync()).toThrow(NsmIoctlError);
      expect(() => device.describePcrSync(0)).toThrow(/NSM ioctl failed: ENOTTY/);
      await expect(
        device.attestation({ userData: new Uint8Array(4), nonce: null, publicKey: null }),
      ).rejects.toMatchObject({ name: "NsmIoctlError", code: "ENOTTY" });
    } finally {
      device.close();
    }
    expect(() => device.getRandomSync()).toThrow(/closed/);
  });

  it("validates arguments in the addon before any system call", () => {
    const raw = loadAddon<RawNsmBinding>("nsm");
    expect(() => raw.open(42)).toThrow(TypeError);
    expect(() => raw.open("")).toThrow(/non-empty/);
    expect(() => raw.open("/dev/\0nsm")).toThrow(/NUL/);
    expect(() => raw.requestSync(-1, new Uint8Array(1))).toThrow(/fd must be a non-negative/);
    expect(() => raw.requestSync(1.5, new Uint8Array(1))).toThrow(/fd must be a non-negative/);
    expect(() => raw.requestSync("3", new Uint8Array(1))).toThrow(/fd must be a number/);
    expect(() => raw.requestSync(0, new Uint8Array(0))).toThrow(/1\.\.4096 bytes, got 0/);
    expect(() => raw.requestSync(0, new Uint8Array(4097))).toThrow(/1\.\.4096 bytes, got 4097/);
    expect(() => raw.requestSync(0, [1, 2])).toThrow(/Uint8Array/);
    expect(() => raw.request(0, new Uint16Array(2))).toThrow(/Uint8Array/);
    expect(() => raw.close(-3)).toThrow(/fd must be a non-negative/);
  });
});
