/** A ts-morph in-memory project shared by the binary emitters, with the repository's code style. */
import { IndentationText, Project, QuoteKind, type SourceFile } from "ts-morph";
import { GENERATED_HEADER, type GeneratedFile } from "../files.js";

let project: Project | undefined;

function sharedProject(): Project {
  project ??= new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: {
      indentationText: IndentationText.TwoSpaces,
      quoteKind: QuoteKind.Double,
      useTrailingCommas: true,
    },
  });
  return project;
}

/** A fresh, empty source file to emit into. */
export function emptySource(path: string): SourceFile {
  return sharedProject().createSourceFile(`/${path}`, "", { overwrite: true });
}

/** The generated file for a source file built with emptySource(). */
export function toGenerated(path: string, source: SourceFile): GeneratedFile {
  return { path, content: GENERATED_HEADER + source.getFullText() };
}

/** JSON.stringify for an identifier-safe string literal in generated code. */
export function literal(value: string): string {
  return JSON.stringify(value);
}
