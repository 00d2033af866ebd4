/**
 * Which resource files service.json's `resources` names. Its own module, light to load: the
 * up-to-date check of `generate` needs it before anything else is loaded.
 */
import fs from "node:fs";
import path from "node:path";
import { globSync, isDynamicPattern } from "tinyglobby";
import { childPointer, type Diagnostic } from "../diagnostics/diagnostic.js";
import { report } from "../diagnostics/report.js";

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
