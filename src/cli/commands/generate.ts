import { Args, Flags } from "@oclif/core";
import { generate } from "../../generate.js";
import { mark } from "../../timing.js";
import { allowPathFlag } from "../allow-path-flag.js";
import { BaseCommand, EXIT } from "../base-command.js";
import { describeStep, reportConflicts, reportGenerate } from "../report.js";

export default class Generate extends BaseCommand {
  static override summary = "Generate the service package (server, error catalog, media types, tests).";
  static override description =
    "Checks the definitions in DIR and generates the service package into OUT (created if absent), or regenerates it " +
    "when OUT holds an earlier generation. Files you own (hooks, action handlers, src/main.ts, package.json) are created " +
    "once and never overwritten; one you delete is not created again, unless the package needs it (a hook or action " +
    "handler the generated code imports, package.json, tsconfig.json). Nothing is written when the definitions have " +
    "errors or a generated file was edited by hand (unless --force), nor when the definitions would break a version OUT " +
    "already served (recorded in OUT/.resourcery/contract.json; unless --allow-breaking).";
  static override examples = [
    "<%= config.bin %> generate examples/directory --out ../directory-service",
    "<%= config.bin %> generate --out ../directory-service --dry-run",
    "<%= config.bin %> generate examples/directory --out ../directory-client --client-only",
    "<%= config.bin %> generate examples/directory --out ../directory-client-v1 --client-only --version 1",
  ];
  static override args = { dir: Args.string({ description: "definitions folder (holding service.json)", default: "." }) };
  static override flags = {
    "allow-path": allowPathFlag,
    out: Flags.string({ char: "o", description: "output folder of the generated package", required: true }),
    force: Flags.boolean({ description: "overwrite generated files even when they were edited by hand, and write into an OUT that holds files resourcery did not write", default: false }),
    "client-only": Flags.boolean({ description: "generate only the typed client, as a standalone package for the API's consumers", default: false }),
    version: Flags.integer({
      description: "with --client-only: the client of this older version the service still serves (its names, media types and base URL); a version it does not serve is an error",
      min: 1,
    }),
    "dry-run": Flags.boolean({ description: "print what would be created, updated, deleted and kept; write nothing", default: false }),
    "allow-breaking": Flags.boolean({
      description: "write even when the definitions break a version OUT already served (a property removed or renamed, a new required one, a narrower type …); without it such a generation writes nothing and exits 1",
      default: false,
    }),
  };

  async run(): Promise<void> {
    mark("oclif command");
    const { args, flags } = await this.parse(Generate);
    // (The service package serves every version: only a client is of one.)
    if (flags.version !== undefined && !flags["client-only"]) this.error("--version needs --client-only: the service package serves every version at once", { exit: EXIT.usage });
    const allowPaths = (flags["allow-path"] ?? []).map((d) => this.existingDir(d));
    const options = { out: flags.out, force: flags.force, dryRun: flags["dry-run"], clientOnly: flags["client-only"], ...(flags.version === undefined ? {} : { version: flags.version }), allowBreaking: flags["allow-breaking"], allowPaths };
    const result = await generate(this.existingDir(args.dir), options);
    if (!flags.json) return this.exitWith(reportGenerate(result, flags["dry-run"], (line) => this.log(line)));
    const steps = result.plan?.steps ?? [];
    const code = this.printDiagnostics(result.check, true, { files: steps.map(describeStep), written: result.written });
    this.exitWith(code === EXIT.ok ? reportConflicts(result) : code);
  }
}
