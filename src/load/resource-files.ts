/**
 * Which resource files service.json's `resources` names. Its own module, light to load: the
 * up-to-date check of `generate` needs it before anything else is loaded.
 */
import fs from "node:fs";
import path from "node:path";
import { globSync, isDynamicPattern } from "tinyglobby";
import { childPointer, type Diagnostic } from "../diagnostics/diagnostic.js";
import { report } from "../diagnostics/report.js";
import { fileType, ProjectRoots, readProblemDiagnostic, type ReadProblem } from "./read-file.js";

/** A resource file and the `resources` entry (its index) that first named it. */
export interface ResourceFile {
  readonly file: string;
  readonly entry: number;
}

/**
 * The resource files named by `resources` (absolute, sorted): literal paths must exist, globs must
 * match something, and both must stay inside `roots` (the project folder unless told more).
 */
export function findResources(dir: string, serviceFile: string, value: unknown, diagnostics: Diagnostic[], roots = new ProjectRoots(dir)): ResourceFile[] {
  const entries = (value as { resources?: unknown } | undefined)?.resources;
  if (!Array.isArray(entries)) return [];
  const found = new Map<string, number>();
  entries.forEach((entry, i) => {
    if (typeof entry !== "string" || entry === "") return;
    const at = { file: serviceFile, pointer: childPointer("/resources", i) };
    if (!isDynamicPattern(entry)) {
      const file = path.resolve(dir, entry);
      const problem = refusal(roots, file);
      if (problem === "missing") diagnostics.push(report("missing-file", at, { path: entry, what: "resource file" }));
      else if (problem) diagnostics.push(problem(at, entry));
      else if (!found.has(file)) found.set(file, i);
      return;
    }
    // A glob whose fixed part leads out of the project is refused before anything is searched.
    const base = path.resolve(dir, globBase(entry));
    if (!roots.mayHold(base)) {
      diagnostics.push(report("ref-outside-project", at, { what: "resources entry", name: entry, link: "" }));
      return;
    }
    // Symbolic links are not followed: a linked folder could lead anywhere, "/" included. Folders of
    // installed packages (a generated package's node_modules under the project) hold no definitions.
    const matches = globSync(entry, { cwd: dir, absolute: true, onlyFiles: true, followSymbolicLinks: false, ignore: ["**/node_modules/**"] })
      .map((f) => path.resolve(f))
      .filter((f) => f !== serviceFile);
    if (matches.length === 0) diagnostics.push(report("no-resources", at, { pattern: entry }));
    for (const m of matches) {
      const problem = refusal(roots, m);
      if (problem && problem !== "missing") diagnostics.push(problem(at, path.relative(dir, m)));
      else if (!problem && !found.has(m)) found.set(m, i);
    }
  });
  return [...found].map(([file, entry]) => ({ file, entry })).sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** The resource files named by `resources` (absolute, sorted); also `generate`'s up-to-date check, with throw-away diagnostics. */
export function resourceFiles(dir: string, serviceFile: string, value: unknown, diagnostics: Diagnostic[], roots?: ProjectRoots): string[] {
  return findResources(dir, serviceFile, value, diagnostics, roots).map((r) => r.file);
}

/** Why a resources entry's file cannot be used: "missing", a diagnostic maker, or undefined when it can. */
function refusal(roots: ProjectRoots, file: string): "missing" | ((at: { file: string; pointer: string }, name: string) => Diagnostic) | undefined {
  const where = roots.locate(file);
  const problem = "kind" in where ? where : fileProblem(where.real);
  if (!problem) return undefined;
  if (problem.kind === "missing") return "missing";
  return (at, name) => readProblemDiagnostic(problem, at, "resources entry", name)!;
}

/** A folder, FIFO or device where a resource file should be (found by stat, never opened). */
function fileProblem(real: string): ReadProblem | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(real);
  } catch {
    return { kind: "missing" };
  }
  return stat.isFile() ? undefined : { kind: "not-a-file", what: fileType(stat) };
}

/** The fixed folder a glob starts from: its segments before the first one with a wildcard. */
function globBase(pattern: string): string {
  const segments = pattern.split("/");
  const fixed: string[] = [];
  for (const s of segments) {
    if (isDynamicPattern(s)) break;
    fixed.push(s);
  }
  return fixed.join("/") || ".";
}
