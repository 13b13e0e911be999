/**
 * Emits generated/rpc/<service>.ts for one service: per method a params type and an RpcMethodSpec;
 * a typed client class; a handler interface and the function binding handlers into a MethodTable.
 */
import { Scope, VariableDeclarationKind } from "ts-morph";
import type { GeneratedFile } from "../files.js";
import type { MethodDecl, ServiceDecl } from "./model.js";
import {
  codecExpression,
  createProject,
  docs,
  pascalCase,
  renderSourceFile,
  typeExpression,
} from "./ts-output.js";

const paramsTypeName = (method: MethodDecl): string => `${pascalCase(method.name)}Params`;
const resultType = (method: MethodDecl): string => typeExpression(method.result.type, "decoded", "T.");

export function emitService(service: ServiceDecl): GeneratedFile {
  const file = createProject().createSourceFile(`${service.id}.ts`);
  const Service = pascalCase(service.id);
  file.addImportDeclaration({
    moduleSpecifier: "./method-contract.js",
    namedImports: [
      "bindMethod",
      { name: "MethodTable", isTypeOnly: true },
      { name: "RpcHandler", isTypeOnly: true },
    ],
  });
  file.addImportDeclaration({ moduleSpecifier: "./codecs.js", namespaceImport: "C" });
  file.addImportDeclaration({
    moduleSpecifier: "./method-runtime.js",
    namedImports: ["callMethod", "defineMethod", { name: "RpcTransport", isTypeOnly: true }],
  });
  file.addImportDeclaration({ moduleSpecifier: "./types.js", namespaceImport: "T", isTypeOnly: true });
  if (service.methods.some((m) => [m.result.type, ...m.params.map((p) => p.type)].some(usesInlineCodec))) {
    file.addImportDeclaration({ moduleSpecifier: "./wire.js", namespaceImport: "wire" });
  }

  for (const method of service.methods) {
    if (method.params.length === 0) {
      file.addTypeAlias({
        name: paramsTypeName(method),
        isExported: true,
        docs: [`${method.name} takes no params.`],
        type: "Record<string, never>",
      });
    } else {
      file.addInterface({
        name: paramsTypeName(method),
        isExported: true,
        docs: [`Params of ${method.name}, in positional order.`],
        properties: method.params.map((p) => ({
          name: p.name,
          type: typeExpression(p.type, "decoded", "T."),
          hasQuestionToken: !p.required,
          docs: docs(p.doc),
        })),
      });
    }
    const params = method.params.map(
      (p) =>
        `{ name: ${JSON.stringify(p.name)}, codec: ${codecExpression(p.type, "C.")}, required: ${p.required} }`,
    );
    file.addVariableStatement({
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: docs(method.doc),
      declarations: [
        {
          name: method.name,
          initializer: `defineMethod<${paramsTypeName(method)}, ${resultType(method)}>({
            name: ${JSON.stringify(method.name)},
            paramStructure: ${JSON.stringify(method.paramStructure)},
            params: [${params.length === 0 ? "" : `\n${params.join(",\n")},\n`}],
            result: ${codecExpression(method.result.type, "C.")},
          })`,
        },
      ],
    });
  }

  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [`Every ${service.id} method spec, by method name, in spec order.`],
    declarations: [
      {
        name: `${service.id}Methods`,
        initializer: `{ ${service.methods.map((m) => m.name).join(", ")} } as const`,
      },
    ],
  });

  file.addInterface({
    name: `${Service}Handlers`,
    isExported: true,
    docs: [`The hand-written handlers of the ${service.title} service: one per method.`],
    properties: service.methods.map((m) => ({
      name: m.name,
      type: `RpcHandler<${paramsTypeName(m)}, ${resultType(m)}>`,
      docs: docs(m.doc),
    })),
  });

  file.addFunction({
    name: `bind${Service}Handlers`,
    isExported: true,
    docs: [
      `Binds the ${service.id} handlers to their method specs: the table the JSON-RPC server dispatches on.`,
    ],
    parameters: [{ name: "handlers", type: `${Service}Handlers` }],
    returnType: "MethodTable",
    statements: [
      `const bound = [\n${service.methods.map((m) => `bindMethod(${m.name}, handlers.${m.name})`).join(",\n")},\n];`,
      "return new Map(bound.map((method) => [method.name, method]));",
    ],
  });

  file.addClass({
    name: `${Service}Client`,
    isExported: true,
    docs: [`Typed client of the ${service.title} service: encodes params, decodes results.`],
    ctors: [
      { parameters: [{ name: "transport", type: "RpcTransport", isReadonly: true, scope: Scope.Private }] },
    ],
    methods: service.methods.map((m) => ({
      name: m.name,
      docs: docs(m.doc),
      parameters: m.params.map((p) => ({
        name: p.name,
        type: typeExpression(p.type, "decoded", "T."),
        hasQuestionToken: !p.required,
      })),
      returnType: `Promise<${resultType(m)}>`,
      statements: [
        `return callMethod(this.transport, ${m.name}, { ${m.params.map((p) => p.name).join(", ")} });`,
      ],
    })),
  });

  return renderSourceFile(file, `${service.id}.ts`);
}

/** Whether a type's codec expression needs the wire module (anything but a named type). */
function usesInlineCodec(type: MethodDecl["result"]["type"]): boolean {
  return type.kind !== "ref";
}
