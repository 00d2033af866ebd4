import { Args, Flags } from "@oclif/core";
import { checkProject } from "../../pipeline.js";
import { BaseCommand, EXIT } from "../base-command.js";

export default class Generate extends BaseCommand {
  static override summary = "Generate the service package (server, error catalog, media types, client, docs).";
  static override description =
    "Checks the definitions in DIR and generates the service package into OUT. Nothing is written when the definitions have errors.";
  static override examples = ["<%= config.bin %> generate examples/directory --out ../directory-service"];
  static override args = { dir: Args.string({ description: "definitions folder (holding service.json)", default: "." }) };
  static override flags = {
    out: Flags.string({ char: "o", description: "output folder of the generated package", required: true }),
    force: Flags.boolean({ description: "overwrite generated files even when they were edited by hand", default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Generate);
    const result = checkProject(this.existingDir(args.dir));
    const code = this.printDiagnostics(result, flags.json);
    if (code !== EXIT.ok) return this.exitWith(code);
    process.stderr.write("resourcery generate: code generation is not available in this version yet; nothing was written\n");
    this.exitWith(EXIT.errors);
  }
}
