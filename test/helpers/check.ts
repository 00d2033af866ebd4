/** In-process check of a definitions folder, rendered as the CLI renders it (paths relative to the folder). */
import { renderText, toJson, type DiagnosticJson } from "../../src/diagnostics/render.js";
import type { CheckOptions } from "../../src/load/limits.js";
import { checkProject } from "../../src/pipeline.js";

/** The diagnostics of `dir` as JSON items, with file paths relative to `dir`. */
export function checkItems(dir: string, options?: CheckOptions): DiagnosticJson[] {
  const result = checkProject(dir, options);
  return toJson(result.diagnostics, result.sources, dir);
}

/** The exact text `resourcery check` prints for `dir` when run inside it (without the summary line). */
export function checkText(dir: string): string {
  return renderText(checkItems(dir));
}
