/**
 * What the commands print, without oclif: the `generate` command and the plain-form fast path
 * (fast-path.ts) print through the same functions, so their output cannot drift apart.
 */
import { hasErrors } from "../diagnostics/diagnostic.js";
import { describeInternalError } from "../diagnostics/internal-error.js";
import { OutError } from "../write/out-error.js";
import { renderSummary, renderText, toJson } from "../diagnostics/render.js";
import type { GenerateResult } from "../generate.js";
import type { CheckResult } from "../pipeline.js";
import type { Step } from "../write/plan.js";

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

/**
 * Prints what stopped a command on stderr: an OutError (OUT refused, locked, or not writable) as one
 * line, exit 1; anything else is a bug in resourcery (one line, exit 2). Returns the exit code.
 */
export function reportFailure(command: string, error: unknown): number {
  if (error instanceof OutError) {
    process.stderr.write(`resourcery ${command}: ${error.message}\n`);
    return EXIT.errors;
  }
  process.stderr.write(describeInternalError(error) + "\n");
  return EXIT.usage;
}

/** What a step did (or would do) to which path, in words; `reason` says why, where that is not plain. */
export function describeStep(s: Step): { path: string; action: string; reason?: string } {
  const p = "file" in s ? s.file.path : s.path;
  const actions: Record<Step["kind"], string> = {
    create: "created", update: "updated", merge: "merged", unchanged: "unchanged", keep: "kept", delete: "deleted", orphan: "orphaned", absent: "not recreated", conflict: "conflict",
  };
  if (s.kind === "orphan") return { path: p, action: actions[s.kind], reason: "your file; its resource or action is gone: delete it when you no longer need it" };
  if (s.kind === "absent") return { path: p, action: actions[s.kind], reason: "you deleted it; resourcery seeds a file of yours once" };
  if (s.kind === "create" && "recreated" in s && s.recreated !== undefined) return { path: p, action: "recreated", reason: `you deleted it, but ${s.recreated}` };
  if (s.kind === "create" && "movedFrom" in s && s.movedFrom !== undefined) return { path: p, action: "moved", reason: `your ${s.movedFrom}, its collection renamed${"renamed" in s && s.renamed ? `; ${s.renamed}` : ""}` };
  if (s.kind === "update" && "merged" in s && s.merged !== undefined) return { path: p, action: "merged", reason: `your file: ${s.merged}, which the generated wiring imports; every line of yours kept` };
  if (s.kind === "update" && "renamed" in s && s.renamed !== undefined) return { path: p, action: "renamed", reason: `your file: ${s.renamed}; every other line kept` };
  if (s.kind === "delete" && s.movedTo !== undefined) return { path: p, action: "moved", reason: `to ${s.movedTo}` };
  return { path: p, action: actions[s.kind] };
}

/** The plan as printed: a line per changed or kept file, and the summary line. */
export function planLines(steps: readonly Step[], dryRun: boolean): string[] {
  const count = (kind: Step["kind"]) => steps.filter((s) => s.kind === kind).length;
  const lines: string[] = [];
  for (const s of steps) {
    if (s.kind === "unchanged") continue;
    const d = describeStep(s);
    lines.push(`${d.action.padEnd(9)} ${d.path}${d.reason === undefined ? "" : `  (${d.reason})`}`);
  }
  const absent = count("absent");
  const summary =
    `${count("create")} created, ${count("update") + count("merge")} updated, ${count("delete")} deleted, ${count("unchanged")} unchanged, ` +
    `${count("keep") + count("orphan")} of yours kept${absent > 0 ? `, ${absent} of yours not recreated` : ""}`;
  lines.push(dryRun ? `dry run: would be ${summary}; nothing was written` : summary);
  return lines;
}
