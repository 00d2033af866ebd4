/** Runs the built CLI (bin/run.js) exactly as a user would, capturing output and exit code. */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const binRun = path.join(repoRoot, "bin", "run.js");

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `resourcery <args>` in `cwd` (default: the repo root). */
export function runCli(args: readonly string[], cwd: string = repoRoot, env: NodeJS.ProcessEnv = {}): CliResult {
  const r = spawnSync(process.execPath, [binRun, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
