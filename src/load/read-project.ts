/** Reads a definitions project from disk: service.json and the resource files it names. */
import path from "node:path";
import { childPointer, type Diagnostic } from "../diagnostics/diagnostic.js";
import { report } from "../diagnostics/report.js";
import { DocumentStore } from "./documents.js";
import { limitsOf, type CheckOptions } from "./limits.js";
import { FileReader, ProjectRoots, readProblemDiagnostic } from "./read-file.js";
import { findResources } from "./resource-files.js";
import type { JsonDocument } from "./parse-json.js";

/** The raw documents of one project, before any interpretation. */
export interface Project {
  readonly dir: string;
  readonly serviceFile: string;
  /** service.json, or null when missing or unparsable. */
  readonly service: JsonDocument | null;
  /** Resource documents in path order (only those that parsed). */
  readonly resources: readonly JsonDocument[];
  readonly store: DocumentStore;
}

/**
 * Loads `dir/service.json` and every resource file its `resources` entries match. Files are read
 * only inside `dir` (and `options.allowPaths`), only regular ones, within `options.limits`.
 */
export function readProject(dir: string, options: CheckOptions = {}): readonly [Project, Diagnostic[]] {
  const abs = path.resolve(dir);
  const limits = limitsOf(options);
  const roots = new ProjectRoots(abs, options.allowPaths);
  const store = new DocumentStore(new FileReader(roots, limits), limits.nesting);
  const serviceFile = path.join(abs, "service.json");
  const diagnostics: Diagnostic[] = [];
  const loaded = store.load(serviceFile);
  const service = "kind" in loaded ? null : loaded;
  if ("kind" in loaded) {
    // Named as the project knows it, whatever the cwd: the diagnostic's file column says where.
    const at = { file: serviceFile, pointer: "" };
    diagnostics.push(readProblemDiagnostic(loaded, at, "service definition", "service.json") ?? report("missing-file", at, { path: "service.json", what: "service definition" }));
  }
  const resources: JsonDocument[] = [];
  for (const { file, entry } of findResources(abs, serviceFile, service?.value, diagnostics, roots)) {
    const doc = store.load(file);
    if ("kind" in doc) {
      // Found a moment ago, refused now: too large, over the total, or swapped for something else.
      const at = { file: serviceFile, pointer: childPointer("/resources", entry) };
      const name = path.relative(abs, file);
      diagnostics.push(readProblemDiagnostic(doc, at, "resources entry", name) ?? report("missing-file", at, { path: name, what: "resource file" }));
    } else if (doc.value !== undefined) {
      resources.push(doc);
    }
  }
  return [{ dir: abs, serviceFile, service, resources, store }, diagnostics];
}
