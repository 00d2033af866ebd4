/** What every resourcery command shares: --json, exit codes, diagnostic printing, internal-error handling. */
import { Command, Flags } from "@oclif/core";
import fs from "node:fs";
import path from "node:path";
import { hasErrors } from "../diagnostics/diagnostic.js";
import { toJson } from "../diagnostics/render.js";
import type { CheckResult } from "../pipeline.js";
import { diagnosticsText, EXIT, reportFailure } from "./report.js";

export { EXIT } from "./report.js";

export abstract class BaseCommand extends Command {
  static override baseFlags = {
    json: Flags.boolean({ description: "Print machine-readable JSON instead of text.", default: false }),
  };

  /** Prints the diagnostics of a check (text or JSON) and returns the exit code they call for. */
  protected printDiagnostics(result: CheckResult, json: boolean, extra: Record<string, unknown> = {}): number {
    if (json) {
      const items = toJson(result.diagnostics, result.sources);
      this.log(JSON.stringify(Object.keys(extra).length ? { diagnostics: items, ...extra } : items, null, 2));
    } else {
      for (const text of diagnosticsText(result)) this.log(text);
    }
    return hasErrors(result.diagnostics) ? EXIT.errors : EXIT.ok;
  }

  /** Resolves a directory argument; a missing one is a usage error (exit 2). */
  protected existingDir(dir: string): string {
    const abs = path.resolve(dir);
    if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) {
      this.error(`${dir} is not a directory`, { exit: EXIT.usage });
    }
    return abs;
  }

  /** Sets the exit code without throwing (so output is flushed first). */
  protected exitWith(code: number): void {
    process.exitCode = code;
  }

  /** An output folder that cannot be written: one line, exit 1; anything else not oclif's is a bug: one line, exit 2. */
  protected override async catch(error: Error & { oclif?: { exit?: number } }): Promise<unknown> {
    if (error.oclif) return super.catch(error);
    process.exitCode = reportFailure(this.id ?? "", error);
    return undefined;
  }
}
