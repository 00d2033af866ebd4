/** Builds diagnostics from the code table, so message text never lives at the call site. */
import { codes, type ArgsOf, type Code } from "./codes.js";
import type { Diagnostic, Target } from "./diagnostic.js";

/** One diagnostic of `code` at `at`, its message and hint rendered from the table. */
export function report<C extends Code>(code: C, at: Target, args: ArgsOf<C>): Diagnostic {
  const entry = codes[code] as unknown as {
    severity: Diagnostic["severity"];
    message: (a: ArgsOf<C>) => string;
    hint: (a: ArgsOf<C>) => string;
  };
  return {
    code,
    severity: entry.severity,
    file: at.file,
    pointer: at.pointer,
    kind: at.kind ?? "value",
    ...(at.offset === undefined ? {} : { offset: at.offset }),
    message: entry.message(args),
    hint: entry.hint(args),
  };
}

/** Collects diagnostics across phases; `pipe` unwraps a DiagnosticResult and keeps its findings. */
export class DiagnosticCollector {
  readonly diagnostics: Diagnostic[] = [];

  add(d: Diagnostic): void {
    this.diagnostics.push(d);
  }

  report<C extends Code>(code: C, at: Target, args: ArgsOf<C>): void {
    this.diagnostics.push(report(code, at, args));
  }

  pipe<T>(result: readonly [T, readonly Diagnostic[]]): T {
    this.diagnostics.push(...result[1]);
    return result[0];
  }
}
