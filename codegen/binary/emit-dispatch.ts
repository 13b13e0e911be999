/**
 * Emits generated/protocol/dispatch.ts: the server stub for the enclave side. A `RequestHandlers`
 * interface with one method per request variant, typed to return the response variant the spec pairs
 * with it, and `dispatchRequest`, which routes a decoded request and turns any failure into the error
 * response. The handlers themselves are written by hand in enclave/.
 */
import type { GeneratedFile } from "../files.js";
import type { ProtocolSpec } from "./protocol-spec.js";
import { emptySource, literal, toGenerated } from "./source.js";
import { ProtocolSpecError } from "../errors.js";

function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

export function emitDispatch(spec: ProtocolSpec): GeneratedFile {
  const path = "protocol/dispatch.ts";
  const { requestMessage: req, responseMessage: res, errorResponse: err } = spec.frame;
  const request = spec.types.get(req);
  if (request?.kind !== "enum") throw new ProtocolSpecError(`${req} is not an enum`);
  const sf = emptySource(path);
  sf.addStatements(
    `/** Server stub for ${req} -> ${res}: handlers are written by hand, routing is generated. */`,
  );
  const typeNames = new Set<string>([req, res, `${res}${err}`]);
  for (const v of request.variants) {
    typeNames.add(`${req}${v.name}`);
    typeNames.add(`${res}${v.response}`);
  }
  sf.addImportDeclaration({
    moduleSpecifier: "./types.js",
    isTypeOnly: true,
    namedImports: [...typeNames].sort(),
  });
  sf.addInterface({
    name: `${req}Handlers`,
    isExported: true,
    docs: [`One handler per ${req} variant, answering with the paired ${res} variant.`],
    methods: request.variants.map((v) => ({
      name: lowerFirst(v.name),
      docs: [`${req}::${v.name} -> ${res}::${v.response}`],
      parameters: [{ name: "request", type: `${req}${v.name}` }],
      returnType: `Promise<${res}${v.response}>`,
    })),
  });
  const cases = request.variants
    .map((v) => `case ${literal(v.name)}:\nreturn await handlers.${lowerFirst(v.name)}(request);`)
    .join("\n");
  sf.addStatements(
    `/**
 * Routes one decoded ${req} to its handler. A handler that throws (or an unknown variant) yields the
 * ${res}::${err} that \`toError\` builds from the failure.
 */
export async function dispatch${req}(
  handlers: ${req}Handlers,
  request: ${req},
  toError: (failure: unknown) => ${res}${err},
): Promise<${res}> {
  try {
    switch (request.kind) {
      ${cases}
      default:
        return toError(new Error(\`unknown ${req} variant \${String((request as { kind: unknown }).kind)}\`));
    }
  } catch (failure) {
    return toError(failure);
  }
}`,
  );
  sf.formatText({ indentSize: 2 });
  return toGenerated(path, sf);
}
