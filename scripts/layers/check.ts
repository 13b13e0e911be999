/**
 * The layer check (docs/layers.md): reads every import of every source file and reports
 * - an import from a file outside every declared package, or of a file outside every package;
 * - an upward or sideways import (a library importing a service, a service importing another service, ...);
 * - a deep import: another package's file other than its `index.ts`;
 * - non-test code importing test code (applications may use the process helpers under `test/`);
 * - import cycles between files (type-only imports count: they are cycles a reader has to untangle too).
 * Test code (`*.test.ts`, `*.test-support.ts`, anything in a `test/` folder) is white-box: it may import any
 * module, but its imports still count for cycles.
 * Pure: it takes the files' paths and texts and returns findings; `main.ts` reads the tree.
 */
import path from "node:path/posix";
import ts from "typescript";
import { PACKAGES, ROOT_FILES, type PackageDeclaration } from "./packages.js";

export type FindingKind =
  "outside-packages" | "upward" | "sideways" | "deep" | "test-code" | "unresolved" | "cycle";

export interface Finding {
  readonly kind: FindingKind;
  /** The importing file (for a cycle: its first file). */
  readonly file: string;
  /** The import as written (for a cycle: the files of the cycle joined by " -> "). */
  readonly specifier: string;
  readonly message: string;
}

/** A source file: repository-relative `/`-separated path and its text. */
export interface SourceFile {
  readonly path: string;
  readonly text: string;
}

const SOURCE_EXTENSIONS = [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"];

/** True for code that only tests run. */
export function isTestCode(file: string): boolean {
  return (
    /\.test\.[cm]?[jt]s$/.test(file) ||
    /\.test-support\.[cm]?[jt]s$/.test(file) ||
    file.startsWith("test/") ||
    file.includes("/test/")
  );
}

/** True when the check reads this file. */
export function isSourceFile(file: string): boolean {
  return SOURCE_EXTENSIONS.some((extension) => file.endsWith(extension)) && !file.endsWith(".d.ts");
}

const BY_LENGTH = [...PACKAGES].sort((a, b) => b.path.length - a.path.length);

/** The package holding `file`, or undefined. */
export function packageOf(
  file: string,
  packages: readonly PackageDeclaration[] = BY_LENGTH,
): PackageDeclaration | undefined {
  return packages.find((declaration) => file === declaration.path || file.startsWith(`${declaration.path}/`));
}

/** Relative import specifiers of a file (static, `export … from`, dynamic `import("…")`, type-only included). */
export function importsOf(text: string): string[] {
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map((reference) => reference.fileName).filter((name) => name.startsWith("."));
}

/** The repository file an import names, or undefined when none of the candidates exists. */
function resolve(from: string, specifier: string, exists: (file: string) => boolean): string | undefined {
  const target = path.normalize(path.join(path.dirname(from), specifier));
  const candidates = [target];
  // ESM TypeScript imports name the emitted file: ./x.js is ./x.ts in the tree.
  const swapped: Record<string, string> = { ".js": ".ts", ".mjs": ".mts", ".cjs": ".cts" };
  const extension = path.extname(target);
  if (swapped[extension] !== undefined)
    candidates.push(target.slice(0, -extension.length) + swapped[extension]);
  candidates.push(`${target}.ts`, `${target}/index.ts`);
  return candidates.find(exists);
}

function isIndexOf(file: string, declaration: PackageDeclaration): boolean {
  return file === `${declaration.path}/index.ts` || file === `${declaration.path}/index.js`;
}

function describe(declaration: PackageDeclaration): string {
  return `${declaration.path} (${declaration.layer})`;
}

/** The layer findings of one import. */
function checkImport(
  from: string,
  specifier: string,
  target: string,
  packages: readonly PackageDeclaration[],
): Finding | undefined {
  if (isTestCode(from)) return undefined;
  const source = packageOf(from, packages)!;
  const finding = (kind: FindingKind, message: string): Finding => ({ kind, file: from, specifier, message });
  if (isTestCode(target)) {
    if (source.layer === "application" && target.startsWith("test/")) return undefined;
    return finding("test-code", `non-test code imports test code ${target}`);
  }
  const destination = packageOf(target, packages);
  if (destination === undefined) {
    if (ROOT_FILES.includes(target)) return undefined;
    return finding("outside-packages", `${target} is in no declared package (scripts/layers/packages.ts)`);
  }
  if (destination === source) return undefined;
  if (destination.rank > source.rank) {
    return finding("upward", `${describe(source)} imports ${describe(destination)}, a higher layer`);
  }
  if (destination.rank === source.rank) {
    return finding(
      "sideways",
      `${describe(source)} imports ${describe(destination)} of the same layer and rank`,
    );
  }
  if (!isIndexOf(target, destination)) {
    return finding(
      "deep",
      `imports ${target}: another package is imported only through ${destination.path}/index.ts`,
    );
  }
  return undefined;
}

/** Strongly connected components of size > 1 (and self-loops), by Tarjan's algorithm, iteratively. */
export function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  for (const root of [...graph.keys()].sort()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; edge: number }> = [{ node: root, edge: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const successor = edges[frame.edge++]!;
        if (!index.has(successor)) {
          index.set(successor, next);
          low.set(successor, next++);
          stack.push(successor);
          onStack.add(successor);
          work.push({ node: successor, edge: 0 });
        } else if (onStack.has(successor)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(successor)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = component.length === 1 && edges.includes(frame.node);
        if (component.length > 1 || selfLoop) cycles.push(component.sort());
      }
    }
  }
  return cycles;
}

/** Every finding of the layer check over `files`. */
export function checkLayers(
  files: readonly SourceFile[],
  packages: readonly PackageDeclaration[] = BY_LENGTH,
): Finding[] {
  const sorted = [...packages].sort((a, b) => b.path.length - a.path.length);
  const paths = new Set(files.map((file) => file.path));
  const exists = (file: string): boolean => paths.has(file);
  const findings: Finding[] = [];
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const edges: string[] = [];
    graph.set(file.path, edges);
    if (packageOf(file.path, sorted) === undefined && !ROOT_FILES.includes(file.path)) {
      findings.push({
        kind: "outside-packages",
        file: file.path,
        specifier: "",
        message: `${file.path} is in no declared package (scripts/layers/packages.ts)`,
      });
      continue;
    }
    for (const specifier of importsOf(file.text)) {
      const target = resolve(file.path, specifier, exists);
      if (target === undefined) {
        // JSON and other data files are not modules the check follows; a missing .ts file is reported.
        if (/\.(json|node)$/.test(specifier)) continue;
        findings.push({
          kind: "unresolved",
          file: file.path,
          specifier,
          message: `cannot resolve ${specifier}`,
        });
        continue;
      }
      edges.push(target);
      if (ROOT_FILES.includes(file.path)) continue;
      const finding = checkImport(file.path, specifier, target, sorted);
      if (finding !== undefined) findings.push(finding);
    }
  }
  for (const cycle of cyclesOf(graph)) {
    findings.push({
      kind: "cycle",
      file: cycle[0]!,
      specifier: cycle.join(", "),
      message: `import cycle between ${cycle.length} files: ${cycle.join(", ")}`,
    });
  }
  return findings;
}
