import { Args, Flags } from "@oclif/core";
import { checkProject } from "../../pipeline.js";
import { BaseCommand, EXIT } from "../base-command.js";

export default class Docs extends BaseCommand {
  static override summary = "Write the reference docs: openapi.json, a static HTML reference, one page per error code.";
  static override description = "Checks the definitions in DIR and writes the API reference into OUT. Exit codes as for check.";
  static override examples = ["<%= config.bin %> docs examples/directory --out site"];
  static override args = { dir: Args.string({ description: "definitions folder (holding service.json)", default: "." }) };
  static override flags = {
    out: Flags.string({ char: "o", description: "output folder of the docs", required: true }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Docs);
    const result = checkProject(this.existingDir(args.dir));
    const code = this.printDiagnostics(result, flags.json);
    if (code !== EXIT.ok) return this.exitWith(code);
    process.stderr.write("resourcery docs: docs generation is not available in this version yet; nothing was written\n");
    this.exitWith(EXIT.errors);
  }
}
