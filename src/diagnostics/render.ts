/** Renders diagnostics as text lines (with a hint line) or as the JSON array of the contract. */
import path from "node:path";
import type { Diagnostic } from "./diagnostic.js";
import { locate, type SourceText } from "./locate.js";

/** A diagnostic as `--json` prints it. */
export interface DiagnosticJson {
  file: string;
  line: number;
  column: number;
  pointer: string;
  rule: string;
  severity: string;
  message: string;
  hint: string;
}

/** Resolves positions and relative paths: the form both renderers print. */
export function toJson(
  diagnostics: readonly Diagnostic[],
  sources: ReadonlyMap<string, SourceText>,
  cwd: string = process.cwd(),
): DiagnosticJson[] {
  const items = diagnostics.map((d) => {
    const { line, column } = locate(sources.get(d.file), d);
    return {
      file: displayPath(d.file, cwd),
      line,
      column,
      pointer: d.pointer,
      rule: d.code,
      severity: d.severity,
      message: d.message,
      hint: d.hint,
    };
  });
  return items.sort((a, b) => compare(a.file, b.file) || a.line - b.line || a.column - b.column || compare(a.rule, b.rule));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `file:line:col  severity  RULE  message  (pointer)` and `  hint: …`, one pair per diagnostic. */
export function renderText(items: readonly DiagnosticJson[]): string {
  return items
    .map((d) => {
      const where = d.pointer === "" ? "" : `  (${d.pointer})`;
      return `${d.file}:${d.line}:${d.column}  ${d.severity}  ${d.rule}  ${d.message}${where}\n  hint: ${d.hint}`;
    })
    .join("\n");
}

/** One summary line: `2 errors, 1 warning`. */
export function renderSummary(items: readonly DiagnosticJson[]): string {
  const errors = items.filter((d) => d.severity === "error").length;
  const warnings = items.length - errors;
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? "" : "s"}`;
  return `${plural(errors, "error")}, ${plural(warnings, "warning")}`;
}

/** A path relative to cwd when it lies below it, else absolute; always with forward slashes. */
export function displayPath(file: string, cwd: string): string {
  const rel = path.relative(cwd, file);
  const shown = rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : file;
  return shown.split(path.sep).join("/");
}
