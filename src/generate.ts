/** `generate`: check → emit the package in memory → plan against OUT → write it all, or nothing. */
import fs from "node:fs";
import path from "node:path";
import { hasErrors } from "./diagnostics/diagnostic.js";
import { packagePath } from "./paths.js";
import { checkProject, type CheckResult } from "./pipeline.js";
import type { Plan } from "./write/plan.js";

export interface GenerateOptions {
  readonly out: string;
  readonly force?: boolean;
  readonly dryRun?: boolean;
  /** Only the typed client, as a standalone package. */
  readonly clientOnly?: boolean;
}

export interface GenerateResult {
  readonly check: CheckResult;
  /** Absent when the definitions have errors (nothing was emitted). */
  readonly plan?: Plan;
  /** True when files were written. */
  readonly written: boolean;
}

/** The name and version of this resourcery, recorded in the manifest. */
export function generatorId(): string {
  const pkg = JSON.parse(fs.readFileSync(packagePath("package.json"), "utf8")) as { name: string; version: string };
  return `${pkg.name}@${pkg.version}`;
}

/** Generates the service package of the definitions in `dir` into `options.out`. */
export async function generate(dir: string, options: GenerateOptions): Promise<GenerateResult> {
  const check = checkProject(dir);
  if (hasErrors(check.diagnostics) || !check.model) return { check, written: false };
  // Heavy modules load only when there is something to generate (check and --help stay fast).
  const [{ emitService, emitClientOnly }, { planWrite }, { commitPlan, recover }, { readManifest }] = await Promise.all([
    import("./emit/index.js"),
    import("./write/plan.js"),
    import("./write/commit.js"),
    import("./write/manifest.js"),
  ]);
  const files = options.clientOnly ? await emitClientOnly(check.model) : await emitService(check.model);
  const out = path.resolve(options.out);
  if (fs.existsSync(out) && !options.dryRun) recover(out);
  const plan = planWrite(out, files, readManifest(out), options.force ?? false);
  if (plan.conflicts.length > 0 || options.dryRun) return { check, plan, written: false };
  commitPlan(out, plan, generatorId());
  return { check, plan, written: true };
}
