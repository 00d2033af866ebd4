/** One in-memory ts-morph project; TypeScript files are built from structures and printed once. */
import { IndentationText, Project, QuoteKind, type StatementStructures, type WriterFunction } from "ts-morph";

let project: Project | undefined;

function shared(): Project {
  project ??= new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: { indentationText: IndentationText.TwoSpaces, quoteKind: QuoteKind.Double, useTrailingCommas: true },
  });
  return project;
}

/** Prints a TypeScript file from statement structures, with `header` on top. */
export function printTs(path: string, header: string, statements: (string | WriterFunction | StatementStructures)[]): string {
  const file = shared().createSourceFile(`/${path}`, { statements }, { overwrite: true });
  const text = file.getFullText();
  shared().removeSourceFile(file);
  return header + "\n" + text;
}

/** A JSON value as a TypeScript expression (JSON is valid TS). */
export function literal(value: unknown, indent = 0): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, "\n" + " ".repeat(indent));
}

/** A JSDoc comment body, safe against a user's "*\/". */
export function doc(text: string): string {
  return text.replace(/\*\//g, "*\\/");
}
