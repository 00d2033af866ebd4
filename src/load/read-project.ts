/** Reads a definitions project from disk: service.json and the resource files it names. */
import fs from "node:fs";
import path from "node:path";
import { globSync, isDynamicPattern } from "tinyglobby";
import { childPointer, type Diagnostic } from "../diagnostics/diagnostic.js";
import { report } from "../diagnostics/report.js";
import { DocumentStore } from "./documents.js";
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

/**
 * The resource files named by `resources` (absolute, sorted): literal paths must exist, globs must
 * match something. Also used by `generate`'s up-to-date check, with its own throw-away diagnostics.
 */
export function resourceFiles(dir: string, serviceFile: string, value: unknown, diagnostics: Diagnostic[]): string[] {
  const entries = (value as { resources?: unknown } | undefined)?.resources;
  if (!Array.isArray(entries)) return [];
  const found = new Set<string>();
  entries.forEach((entry, i) => {
    if (typeof entry !== "string" || entry === "") return;
    const at = { file: serviceFile, pointer: childPointer("/resources", i) };
    if (!isDynamicPattern(entry)) {
      const file = path.resolve(dir, entry);
      if (fs.existsSync(file) && fs.statSync(file).isFile()) found.add(file);
      else diagnostics.push(report("missing-file", at, { path: entry, what: "resource file" }));
      return;
    }
    const matches = globSync(entry, { cwd: dir, absolute: true, onlyFiles: true })
      .map((f) => path.resolve(f))
      .filter((f) => f !== serviceFile);
    if (matches.length === 0) diagnostics.push(report("no-resources", at, { pattern: entry }));
    matches.forEach((m) => found.add(m));
  });
  return [...found].sort();
}
