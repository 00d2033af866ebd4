/** Programmatic API of resourcery: the same functions the CLI calls. */
export { checkProject, type CheckResult } from "./pipeline.js";
export { DEFAULT_LIMITS, type CheckOptions, type Limits } from "./load/limits.js";
export { toJson, renderText, renderSummary, type DiagnosticJson } from "./diagnostics/render.js";
export type { Diagnostic, Severity } from "./diagnostics/diagnostic.js";
export type * from "./model/types.js";
