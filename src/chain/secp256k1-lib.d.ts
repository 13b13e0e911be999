/**
 * The `secp256k1` package's API factory (lib/index.js, CommonJS, no types of its own): the wrapper it puts over
 * its libsecp256k1 addon (`new addon.Secp256k1()`), checking arguments and turning the addon's status codes into
 * errors. src/chain/secp256k1.ts uses it over the addon the enclave image embeds.
 */
declare module "secp256k1/lib/index.js" {
  const secp256k1Api: (addon: unknown) => unknown;
  export default secp256k1Api;
}
