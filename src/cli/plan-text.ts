/** The lines `generate` prints about a plan: one per file that is not unchanged, then the counts. */
import type { Step } from "../write/plan.js";

/** What a step did (or would do) to which path, in words. */
export function describeStep(s: Step): { path: string; action: string } {
  const p = "file" in s ? s.file.path : s.path;
  const actions: Record<Step["kind"], string> = { create: "created", update: "updated", merge: "merged", unchanged: "unchanged", keep: "kept", delete: "deleted", orphan: "orphaned", conflict: "conflict" };
  return { path: p, action: actions[s.kind] };
}

/** The plan as printed: a line per changed or kept file, and the summary line. */
export function planLines(steps: readonly Step[], dryRun: boolean): string[] {
  const count = (kind: Step["kind"]) => steps.filter((s) => s.kind === kind).length;
  const lines: string[] = [];
  for (const s of steps) {
    if (s.kind === "unchanged") continue;
    const d = describeStep(s);
    lines.push(`${d.action.padEnd(9)} ${d.path}${s.kind === "orphan" ? "  (your file; its resource or action is gone: delete it when you no longer need it)" : ""}`);
  }
  const summary = `${count("create")} created, ${count("update") + count("merge")} updated, ${count("delete")} deleted, ${count("unchanged")} unchanged, ${count("keep") + count("orphan")} of yours kept`;
  lines.push(dryRun ? `dry run: would be ${summary}; nothing was written` : summary);
  return lines;
}
