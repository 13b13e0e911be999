/** The AWS Nitro Security Module: device access (nsm addon) and its CBOR messages. */
export * from "./device.js";
export * from "./messages.js";
