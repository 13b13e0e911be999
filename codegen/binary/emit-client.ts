/**
 * Emits generated/protocol/client.ts: the typed client for the host side. One method per request
 * variant; it sends the request through a transport function and returns the paired response's value,
 * throws RemoteErrorResponse for the error response and UnexpectedResponseError for any other variant.
 */
import type { GeneratedFile } from "../files.js";
import type { FieldSpec, ProtocolSpec, TypeExpr, VariantSpec } from "./protocol-spec.js";
import { emptySource, literal, toGenerated } from "./source.js";
import { ProtocolSpecError } from "../errors.js";

function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

function fieldsOf(v: VariantSpec): readonly FieldSpec[] {
  return v.fields ?? v.items ?? [];
}

export function emitClient(spec: ProtocolSpec, tsType: (expr: TypeExpr) => string): GeneratedFile {
  const path = "protocol/client.ts";
  const { requestMessage: req, responseMessage: res, errorResponse: err } = spec.frame;
  const request = spec.types.get(req);
  const response = spec.types.get(res);
  if (request?.kind !== "enum" || response?.kind !== "enum")
    throw new ProtocolSpecError("messages must be enums");
  const responseVariant = (name: string) => {
    const v = response.variants.find((r) => r.name === name);
    if (v === undefined) throw new ProtocolSpecError(`unknown response variant ${name}`);
    return v;
  };
  const imported = new Set<string>([req, res]);
  const noteTypes = (expr: TypeExpr) => {
    const text = tsType(expr);
    for (const name of spec.types.keys()) if (new RegExp(`\\b${name}\\b`).test(text)) imported.add(name);
    return text;
  };

  const methods = request.variants.map((v) => {
    const paired = responseVariant(v.response ?? "");
    const pairedFields = fieldsOf(paired);
    const params = fieldsOf(v).map((f) => `${f.name}: ${noteTypes(f.type)}`);
    const args = fieldsOf(v).map((f) => f.name);
    const single = pairedFields.length === 1 ? pairedFields[0] : undefined;
    if (single === undefined) imported.add(`${res}${paired.name}`);
    const returns = single === undefined ? `${res}${paired.name}` : noteTypes(single.type);
    const value = single === undefined ? "response" : `response.${single.name}`;
    const body = `const response = await this.send({ kind: ${literal(v.name)}${args.map((a) => `, ${a}`).join("")} });
if (response.kind === ${literal(paired.name)}) return ${value};
throw unexpected(response, ${literal(paired.name)});`;
    return `/** ${req}::${v.name}, answered by ${res}::${paired.name}. */
async ${lowerFirst(v.name)}(${params.join(", ")}): Promise<${returns}> {
${body}
}`;
  });

  const sf = emptySource(path);
  sf.addStatements(
    `/** Typed client for ${req} -> ${res} over any transport that exchanges one request for one response. */`,
  );
  sf.addImportDeclaration({ moduleSpecifier: "./protocol-error.js", namedImports: ["ProtocolError"] });
  sf.addImportDeclaration({
    moduleSpecifier: "./types.js",
    isTypeOnly: true,
    namedImports: [...imported].sort(),
  });
  sf.addStatements(`/** The peer answered with ${res}::${err}. */
export class RemoteErrorResponse extends ProtocolError<"remote-error"> {
  constructor(message: string) {
    super(message, { kind: "remote-error" });
  }
}

/** The peer answered with a ${res} variant that does not pair with the request. */
export class UnexpectedResponseError extends ProtocolError<"unexpected-response"> {
  constructor(message: string) {
    super(message, { kind: "unexpected-response" });
  }
}

function unexpected(response: ${res}, expected: string): Error {
  if (response.kind === ${literal(err)}) return new RemoteErrorResponse(response.${fieldsOf(responseVariant(err))[0]?.name ?? "message"});
  return new UnexpectedResponseError(\`expected ${res}::\${expected}, got ${res}::\${response.kind}\`);
}

/** Sends one request and resolves with the peer's response (one connection per call). */
export type ${req}Transport = (request: ${req}) => Promise<${res}>;

export class ${req}Client {
  constructor(private readonly send: ${req}Transport) {}

${methods.join("\n\n")}
}`);
  sf.formatText({ indentSize: 2 });
  return toGenerated(path, sf);
}
