/** The window helpers agree with the compiled token at every boundary. */
import { describe, expect, it } from "vitest";
import {
  authArgs,
  authorization,
  BUYER,
  deployToken,
  NOW,
  signTransfer,
  vrsArgs,
} from "../../test/evm/token-fixture.js";
import { isExpiredAt, isUsableAt } from "./authorization.js";

describe("isUsableAt / isExpiredAt", () => {
  it("match the token's acceptance around validAfter and validBefore", async () => {
    const fx = await deployToken();
    const auth = authorization({ validAfter: NOW, validBefore: NOW + 3n });
    const sig = await signTransfer(BUYER, fx.domain, auth);
    for (let t = NOW - 1n; t <= NOW + 4n; t++) {
      const outcome = await fx.harness.simulate(
        fx.token.address,
        fx.token.encode("transferWithAuthorization", [...authArgs(auth), ...vrsArgs(sig)]),
        fx.token.abi,
        { timestamp: t },
      );
      expect(outcome.success, `t = validAfter + ${t - NOW}`).toBe(isUsableAt(auth, t));
      if (isExpiredAt(auth, t)) expect(outcome.revertReason).toBe("FiatTokenV2: authorization is expired");
    }
    expect(isExpiredAt(auth, NOW + 2n)).toBe(false);
    expect(isExpiredAt(auth, NOW + 3n)).toBe(true);
  });
});
