import { Args, Flags } from "@oclif/core";
import fs from "node:fs";
import path from "node:path";
import { initProject, listExamples } from "../../init.js";
import { BaseCommand, EXIT } from "../base-command.js";

export default class Init extends BaseCommand {
  static override summary = "Write a new definitions project that check accepts and generate turns into a service.";
  static override description =
    "Copies one of the bundled examples into DIR and names the service after DIR. DIR must not exist or be empty.";
  static override examples = ["<%= config.bin %> init my-api", "<%= config.bin %> init shop --example library"];
  static override args = { dir: Args.string({ description: "folder to create", required: true }) };
  static override flags = {
    example: Flags.string({ description: `example to start from (${listExamples().join(", ")})`, default: "directory" }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Init);
    const dir = path.resolve(args.dir);
    if (fs.existsSync(dir) && (!fs.statSync(dir).isDirectory() || fs.readdirSync(dir).length > 0)) {
      this.error(`${args.dir} exists and is not empty; choose a new folder`, { exit: EXIT.usage });
    }
    if (!listExamples().includes(flags.example)) {
      this.error(`unknown example "${flags.example}"; choose one of: ${listExamples().join(", ")}`, { exit: EXIT.usage });
    }
    const written = initProject(dir, flags.example);
    if (flags.json) this.log(JSON.stringify({ dir, example: flags.example, files: written }, null, 2));
    else {
      this.log(`created ${args.dir} from the "${flags.example}" example (${written.length} files)`);
      this.log(`next: resourcery check ${args.dir}`);
    }
  }
}
