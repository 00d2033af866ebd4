/**
 * What the commands print, without oclif: the `generate` command and the plain-form fast path
 * (fast-path.ts) print through the same functions, so their output cannot drift apart.
 */
import { hasErrors } from "../diagnostics/diagnostic.js";
import { renderSummary, renderText, toJson } from "../diagnostics/render.js";
import type { GenerateResult } from "../generate.js";
import type { CheckResult } from "../pipeline.js";
import { planLines } from "./plan-text.js";

/** Exit codes of every command: 0 clean (warnings allowed), 1 errors in the definitions, 2 usage or internal. */
export const EXIT = { ok: 0, errors: 1, usage: 2 } as const;

/** The diagnostics of a check as text (nothing when there are none). */
export function diagnosticsText(result: CheckResult): string[] {
  const items = toJson(result.diagnostics, result.sources);
  return items.length > 0 ? [renderText(items), renderSummary(items)] : [];
}

/**
 * Prints the outcome of a `generate` (without --json): diagnostics, then the plan, then the hand
 * edits that stopped it. Returns the exit code.
 */
export function reportGenerate(result: GenerateResult, dryRun: boolean, log: (line: string) => void): number {
  for (const text of diagnosticsText(result.check)) log(text);
  if (hasErrors(result.check.diagnostics)) return EXIT.errors;
  for (const line of planLines(result.plan?.steps ?? [], dryRun)) log(line);
  return reportConflicts(result);
}

/** Explains on stderr which hand edits stopped a `generate`; returns the exit code. */
export function reportConflicts(result: GenerateResult): number {
  const conflicts = result.plan?.conflicts ?? [];
  if (conflicts.length === 0) return EXIT.ok;
  process.stderr.write(
    `resourcery generate: nothing was written: ${conflicts.length} generated file(s) were changed by hand:\n` +
      conflicts.map((c) => `  ${c.path}${c.reason === "foreign" ? " (not written by resourcery)" : ""}\n`).join("") +
      "Move the change into a hook (src/hooks/) or an action handler (src/actions/), or run again with --force to overwrite it.\n",
  );
  return EXIT.errors;
}
