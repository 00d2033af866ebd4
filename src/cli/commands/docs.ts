import { Args, Flags } from "@oclif/core";
import { generateDocs } from "../../generate.js";
import { allowPathFlag } from "../allow-path-flag.js";
import { BaseCommand, EXIT } from "../base-command.js";

export default class Docs extends BaseCommand {
  static override summary = "Write the reference docs: openapi.json, a static HTML reference, one page per error code.";
  static override description =
    "Checks the definitions in DIR and writes the API reference into OUT: openapi.json (OpenAPI 3.1), index.html with a page " +
    "per resource (no network needed), one page per error code at <code>.html with a redirect at <code>/index.html (so <errorDocsUrl>/<code> " +
    "resolves when OUT is hosted at errorDocsUrl), and Markdown versions of every page. A service that serves older versions too " +
    "gets each one's openapi.v<N>.json and reference in v<N>/, a version switch on every page, and changelog.html. Exit codes as for check.";
  static override examples = ["<%= config.bin %> docs examples/directory --out site", "<%= config.bin %> docs --out site --json"];
  static override args = { dir: Args.string({ description: "definitions folder (holding service.json)", default: "." }) };
  static override flags = {
    "allow-path": allowPathFlag,
    out: Flags.string({ char: "o", description: "output folder of the docs", required: true }),
    "dry-run": Flags.boolean({ description: "print what would be written; write nothing", default: false }),
    force: Flags.boolean({ description: "write into OUT even when it holds files that resourcery did not write", default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Docs);
    const allowPaths = (flags["allow-path"] ?? []).map((d) => this.existingDir(d));
    const result = await generateDocs(this.existingDir(args.dir), { out: flags.out, dryRun: flags["dry-run"], force: flags.force, allowPaths });
    const steps = result.plan?.steps ?? [];
    const files = steps.map((s) => ({ path: "file" in s ? s.file.path : s.path, action: s.kind }));
    const code = this.printDiagnostics(result.check, flags.json, flags.json ? { files, written: result.written } : {});
    if (code !== EXIT.ok) return this.exitWith(code);
    if (!flags.json) {
      const count = (k: string) => steps.filter((s) => s.kind === k).length;
      this.log(`${flags["dry-run"] ? "dry run: would write" : "wrote"} the reference into ${flags.out}: ${count("create")} created, ${count("update")} updated, ${count("delete")} deleted, ${count("unchanged")} unchanged`);
      this.log(`open ${flags.out}/index.html; openapi.json is the OpenAPI 3.1 document`);
    }
    this.exitWith(EXIT.ok);
  }
}
