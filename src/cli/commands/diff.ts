import { Args } from "@oclif/core";
import { hasErrors } from "../../diagnostics/diagnostic.js";
import { toJson } from "../../diagnostics/render.js";
import { checkProject } from "../../pipeline.js";
import { classify } from "../../versions/classify.js";
import { contractOf } from "../../versions/contract.js";
import { breakDiagnostics } from "../../versions/gate.js";
import { allowPathFlag } from "../allow-path-flag.js";
import { BaseCommand, EXIT } from "../base-command.js";
import { diagnosticsText } from "../report.js";

export default class Diff extends BaseCommand {
  static override summary = "Classify what changes between two definition folders: breaking or compatible, version by version.";
  static override description =
    "Checks both folders, builds the wire contract of every version each serves, and prints each change: a breaking one as " +
    "an error (where it is, what breaks, the clients it breaks, how to ship it instead), a compatible one on a line of its " +
    "own. The same classification `generate` applies before it writes over a package. Exit 0 when nothing breaks, 1 when " +
    "something does (or either folder has errors), 2 on a usage error.";
  static override examples = ["<%= config.bin %> diff ../definitions-v1 .", "<%= config.bin %> diff old new --json"];
  static override args = {
    old: Args.string({ description: "the definitions folder as published", required: true }),
    new: Args.string({ description: "the definitions folder as changed", required: true }),
  };
  static override flags = { "allow-path": allowPathFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Diff);
    const allowPaths = (flags["allow-path"] ?? []).map((d) => this.existingDir(d));
    const [oldDir, newDir] = [this.existingDir(args.old), this.existingDir(args.new)];
    const before = checkProject(oldDir, { allowPaths });
    const after = checkProject(newDir, { allowPaths });
    for (const result of [before, after]) {
      if (hasErrors(result.diagnostics) || !result.model) {
        this.exitWith(this.printDiagnostics(result, flags.json) || EXIT.errors);
        return;
      }
    }
    const changes = classify(contractOf(before.model!, oldDir), contractOf(after.model!, newDir));
    const breaks = breakDiagnostics(changes, after.model!.service.version, newDir, oldDir);
    const sources = new Map([...before.sources, ...after.sources]);
    const compatible = changes.filter((c) => !c.breaking);
    if (flags.json) {
      this.log(JSON.stringify({ breaking: toJson(breaks, sources), compatible: compatible.map((c) => ({ version: c.version, subject: c.subject, change: c.what, file: c.origin.file, pointer: c.origin.pointer })) }, null, 2));
    } else {
      for (const text of diagnosticsText({ model: undefined, diagnostics: breaks, sources })) this.log(text);
      for (const c of compatible) this.log(`compatible  version ${c.version}: ${c.what}  (${c.origin.file}#${c.origin.pointer})`);
      if (changes.length === 0) this.log("no change to any served version's wire contract");
    }
    this.exitWith(breaks.length > 0 ? EXIT.errors : EXIT.ok);
  }
}
