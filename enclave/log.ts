/** JSON-lines logging for the enclave process: one object per line on stdout. Never logs key material. */
export type LogFields = Record<string, string | number | boolean | null>;

export type Logger = (level: "info" | "warn" | "error", msg: string, fields?: LogFields) => void;

export const jsonLinesLogger: Logger = (level, msg, fields = {}) => {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
};

export const silentLogger: Logger = () => {};
