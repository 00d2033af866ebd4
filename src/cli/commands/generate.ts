import { Args, Flags } from "@oclif/core";
import { generate } from "../../generate.js";
import type { Step } from "../../write/plan.js";
import { BaseCommand, EXIT } from "../base-command.js";

export default class Generate extends BaseCommand {
  static override summary = "Generate the service package (server, error catalog, media types, tests).";
  static override description =
    "Checks the definitions in DIR and generates the service package into OUT (created if absent), or regenerates it " +
    "when OUT holds an earlier generation. Files you own (hooks, action handlers, src/main.ts, package.json) are created " +
    "once and never overwritten. Nothing is written when the definitions have errors or a generated file was edited by " +
    "hand (unless --force).";
  static override examples = [
    "<%= config.bin %> generate examples/directory --out ../directory-service",
    "<%= config.bin %> generate --out ../directory-service --dry-run",
    "<%= config.bin %> generate examples/directory --out ../directory-client --client-only",
  ];
  static override args = { dir: Args.string({ description: "definitions folder (holding service.json)", default: "." }) };
  static override flags = {
    out: Flags.string({ char: "o", description: "output folder of the generated package", required: true }),
    force: Flags.boolean({ description: "overwrite generated files even when they were edited by hand", default: false }),
    "client-only": Flags.boolean({ description: "generate only the typed client, as a standalone package for the API's consumers", default: false }),
    "dry-run": Flags.boolean({ description: "print what would be created, updated, deleted and kept; write nothing", default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Generate);
    const result = await generate(this.existingDir(args.dir), { out: flags.out, force: flags.force, dryRun: flags["dry-run"], clientOnly: flags["client-only"] });
    const steps = result.plan?.steps ?? [];
    const conflicts = result.plan?.conflicts ?? [];
    const code = this.printDiagnostics(result.check, flags.json, flags.json ? { files: steps.map(describe), written: result.written } : {});
    if (code !== EXIT.ok) return this.exitWith(code);
    if (!flags.json) this.printPlan(steps, flags["dry-run"]);
    if (conflicts.length > 0) {
      process.stderr.write(
        `resourcery generate: nothing was written: ${conflicts.length} generated file(s) were changed by hand:\n` +
          conflicts.map((c) => `  ${c.path}${c.reason === "foreign" ? " (not written by resourcery)" : ""}\n`).join("") +
          "Move the change into a hook (src/hooks/) or an action handler (src/actions/), or run again with --force to overwrite it.\n",
      );
      return this.exitWith(EXIT.errors);
    }
    this.exitWith(EXIT.ok);
  }

  private printPlan(steps: readonly Step[], dryRun: boolean): void {
    const count = (kind: Step["kind"]) => steps.filter((s) => s.kind === kind).length;
    for (const s of steps) {
      if (s.kind === "unchanged") continue;
      const d = describe(s);
      this.log(`${d.action.padEnd(9)} ${d.path}${s.kind === "orphan" ? "  (your file; its resource or action is gone: delete it when you no longer need it)" : ""}`);
    }
    const summary = `${count("create")} created, ${count("update") + count("merge")} updated, ${count("delete")} deleted, ${count("unchanged")} unchanged, ${count("keep") + count("orphan")} of yours kept`;
    this.log(dryRun ? `dry run: would be ${summary}; nothing was written` : summary);
  }
}

function describe(s: Step): { path: string; action: string } {
  const p = "file" in s ? s.file.path : s.path;
  const actions: Record<Step["kind"], string> = { create: "created", update: "updated", merge: "merged", unchanged: "unchanged", keep: "kept", delete: "deleted", orphan: "orphaned", conflict: "conflict" };
  return { path: p, action: actions[s.kind] };
}
