import { describe, expect, it } from "vitest";
import { createMemoryLogger, parseLogLevel, UnknownLogLevelError } from "./logger.js";

describe("structured logger", () => {
  it("writes one JSON object per line with level name, ISO time, msg, service and fields", () => {
    const { logger, lines } = createMemoryLogger("node", "info");
    logger.child({ component: "sequencer" }).info({ block: 12, hash: "0xab" }, "sealed block");
    logger.debug("not written below the level");
    logger.error({ err: new TypeError("bad thing") }, "failed");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toEqual({
      level: "info",
      time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      service: "node",
      component: "sequencer",
      block: 12,
      hash: "0xab",
      msg: "sealed block",
    });
    expect(lines[1]).toMatchObject({
      level: "error",
      msg: "failed",
      err: { type: "TypeError", message: "bad thing" },
    });
    expect((lines[1]!.err as { stack: string }).stack).toContain("TypeError: bad thing");
  });

  it("parses level names and refuses unknown ones", () => {
    expect(parseLogLevel("DEBUG")).toBe("debug");
    expect(() => parseLogLevel("loud")).toThrow(UnknownLogLevelError);
  });
});
