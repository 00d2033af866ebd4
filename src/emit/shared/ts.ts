/**
 * Prints TypeScript files from statements. resourcery once built these with ts-morph structures;
 * loading ts-morph (and the TypeScript compiler inside it) cost 480 ms of a 2.0 s generate of 100
 * resources, for files whose statements are a handful of declarations, so they are assembled here.
 */
import { docComment, ident } from "./escape.js";

/** A TypeScript file: the header, then the statements separated by blank lines, ending in a newline. */
export function printTs(header: string, statements: readonly string[]): string {
  return `${header}\n${statements.map((s) => s.trimEnd()).join("\n\n")}\n`;
}

/**
 * A `const` declaration whose object entries are written one per line, each after its JSDoc. The docs
 * are text (escaped here); `text`, `open` and `close` are code, built with the escaping layer.
 */
export function constObject(options: {
  readonly name: string;
  readonly docs: string;
  readonly open: string;
  readonly close: string;
  readonly entries: readonly { readonly doc?: string; readonly text: string }[];
}): string {
  const body = options.entries.map((e) => `${e.doc ? `${docComment(e.doc, "  ")}\n` : ""}  ${e.text},`).join("\n");
  return `${docComment(options.docs)}\nexport const ${ident(options.name)} = ${options.open}\n${body}\n${options.close};`;
}
