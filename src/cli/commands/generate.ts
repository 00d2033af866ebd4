import { Args, Flags } from "@oclif/core";
import { generate } from "../../generate.js";
import type { Step } from "../../write/plan.js";
import { BaseCommand, EXIT } from "../base-command.js";
import { describeStep as describe, planLines } from "../plan-text.js";

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
    for (const line of planLines(steps, dryRun)) this.log(line);
  }
}
