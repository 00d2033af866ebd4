import { Args, Flags } from "@oclif/core";
import { checkProject } from "../../pipeline.js";
import { allowPathFlag } from "../allow-path-flag.js";
import { BaseCommand } from "../base-command.js";

export default class Check extends BaseCommand {
  static override summary = "Validate definitions and lint them against the API conventions.";
  static override description =
    "Loads service.json and the resource schemas it names, checks them against the definition format, and lints them " +
    "against the conventions (R1-R3, E2-E3, A3, A5, V1, V3 and the format rules). Exit 0 when clean (warnings allowed), " +
    "1 when errors were found, 2 on a usage error.";
  static override examples = ["<%= config.bin %> check examples/directory", "<%= config.bin %> check --json"];
  static override args = { dir: Args.string({ description: "definitions folder (holding service.json)", default: "." }) };
  static override flags = {
    "allow-path": allowPathFlag,
    "emit-model": Flags.boolean({ description: "Print the normalized model as JSON (for debugging definitions).", default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Check);
    const allowPaths = (flags["allow-path"] ?? []).map((d) => this.existingDir(d));
    const result = checkProject(this.existingDir(args.dir), { allowPaths });
    if (flags["emit-model"] && result.model) {
      this.log(JSON.stringify(result.model, null, 2));
      this.exitWith(this.printDiagnostics(result, false) && 1);
      return;
    }
    const code = this.printDiagnostics(result, flags.json);
    if (!flags.json && code === 0) {
      const n = result.model ? result.model.resources.length : 0;
      this.log(`ok: ${n} resource${n === 1 ? "" : "s"}, ${result.model?.actions.length ?? 0} action(s) checked`);
    }
    this.exitWith(code);
  }
}
