/** The whole check as one readable function: read → validate → build the model → lint. */
import type { Diagnostic } from "./diagnostics/diagnostic.js";
import type { SourceText } from "./diagnostics/locate.js";
import { limitsOf, type CheckOptions } from "./load/limits.js";
import { readProject } from "./load/read-project.js";
import { validateResource, validateService } from "./load/validate-meta.js";
import { rules, rulesButCompile, withoutRepeats } from "./lint/run-rules.js";
import { buildModel } from "./model/build-model.js";
import type { Model } from "./model/types.js";

/** What a check produces: the model (when the definitions could be read), every finding, and the sources. */
export interface CheckResult {
  readonly model: Model | undefined;
  readonly diagnostics: readonly Diagnostic[];
  readonly sources: ReadonlyMap<string, SourceText>;
}

/**
 * A check whose schema-compile rule `onModel` took over (generate compiles the schemas in its validators
 * worker): `diagnostics` lack its findings until `finish` is given them, and returns the whole check.
 */
export interface UnfinishedCheck extends CheckResult {
  readonly finish?: (compiled: readonly Diagnostic[]) => CheckResult;
}

/**
 * Loads, validates and lints the definitions project in `dir`. Never throws on bad input. Files are
 * read only inside `dir` (and `options.allowPaths`), within `options.limits` (see DEFAULT_LIMITS).
 * `onModel` gets the model as soon as it is built without errors, before the lint (generate starts
 * compiling the validators then, on the other core); when it answers true, it runs the schema-compile rule
 * on that model itself, and the check comes back unfinished (see UnfinishedCheck).
 */
export function checkProject(dir: string, options: CheckOptions = {}, onModel?: (model: Model) => boolean | void): UnfinishedCheck {
  const [project, readDiagnostics] = readProject(dir, options);
  const format: Diagnostic[] = [...readDiagnostics];
  if (project.service?.value !== undefined) format.push(...validateService(project.serviceFile, project.service.value));
  const valid = project.resources.filter((doc) => {
    const found = validateResource(doc.file, doc.value);
    format.push(...found);
    return found.length === 0;
  });
  const [model, modelDiagnostics] = buildModel(project, valid, limitsOf(options));
  const elsewhere = model && onModel && ![...project.store.diagnostics, ...format, ...modelDiagnostics].some((d) => d.severity === "error") ? onModel(model) === true : false;
  // A file with format errors is linted only where its shape can be trusted: resources were left
  // out above; service-level rules are skipped rather than judging fields the meta-schema rejected.
  const broken = new Set(format.filter((d) => d.severity === "error").map((d) => d.file));
  const found = model ? (elsewhere ? rulesButCompile : rules).flatMap((rule) => rule.check(model)) : [];
  const result = (compiled: readonly Diagnostic[]): CheckResult => {
    const lint = withoutRepeats([...found, ...compiled]).filter((d) => !broken.has(d.file));
    return { model, diagnostics: dedupe([...project.store.diagnostics, ...format, ...modelDiagnostics, ...lint]), sources: project.store.sources() };
  };
  return elsewhere ? { ...result([]), finish: result } : result([]);
}

function dedupe(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = `${d.file}|${d.pointer}|${d.offset}|${d.code}|${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
