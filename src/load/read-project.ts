/** Reads a definitions project from disk: service.json and the resource files it names. */
import path from "node:path";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { report } from "../diagnostics/report.js";
import { DocumentStore } from "./documents.js";
import { resourceFiles } from "./resource-files.js";
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

/** Loads `dir/service.json` and every resource file its `resources` entries match. */
export function readProject(dir: string, store = new DocumentStore()): readonly [Project, Diagnostic[]] {
  const abs = path.resolve(dir);
  const serviceFile = path.join(abs, "service.json");
  const diagnostics: Diagnostic[] = [];
  const service = store.get(serviceFile);
  if (service === null) {
    // Named as the project knows it, whatever the cwd: the diagnostic's file column says where.
    diagnostics.push(report("missing-file", { file: serviceFile, pointer: "" }, { path: "service.json", what: "service definition" }));
  }
  const files = resourceFiles(abs, serviceFile, service?.value, diagnostics);
  const resources: JsonDocument[] = [];
  for (const file of files) {
    const doc = store.get(file);
    if (doc?.value !== undefined) resources.push(doc);
  }
  return [{ dir: abs, serviceFile, service, resources, store }, diagnostics];
}
