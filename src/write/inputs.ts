/**
 * What a generation depends on, and the up-to-date check of `generate`: when the definitions, the
 * target and resourcery itself are what the last generation was made from, and every generated
 * file is still on disk as it was written, there is nothing to do — decided without loading,
 * checking or emitting anything.
 */
import fs from "node:fs";
import path from "node:path";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { DEFAULT_LIMITS } from "../load/limits.js";
import { FileReader, ProjectRoots } from "../load/read-file.js";
import { resourceFiles } from "../load/resource-files.js";
import { packagePath, packageRoot } from "../paths.js";
import { hashOf, readManifest, STATE_DIR } from "./manifest.js";
import { planUnchanged, type Plan } from "./plan.js";

/** Which package a generation writes: the service, or the standalone client (`--client-only`), of an older version with `--version N`. */
export type Target = "service" | "client" | `client-v${number}`;

let fingerprint: string | undefined;

/**
 * This resourcery's name, version and a fingerprint of its code and templates (paths, sizes,
 * mtimes), so that a changed generator never passes for an unchanged one (the up-to-date check, the keys
 * and the memo of incremental generation). Run from its sources (tests, bin/dev.js), they count too.
 */
export function generatorFingerprint(): string {
  if (fingerprint !== undefined) return fingerprint;
  const parts: string[] = [generatorId()];
  const walk = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const st = fs.statSync(p);
        parts.push(`${path.relative(packageRoot, p)}:${st.size}:${st.mtimeMs}`);
      }
    }
  };
  walk(packagePath("dist"));
  walk(packagePath("templates"));
  if (import.meta.url.endsWith(".ts")) walk(packagePath("src"));
  return (fingerprint = hashOf(parts.sort().join("\n")));
}

/** The name and version of this resourcery, recorded in the manifest. */
export function generatorId(): string {
  const pkg = JSON.parse(fs.readFileSync(packagePath("package.json"), "utf8")) as { name: string; version: string };
  return `${pkg.name}@${pkg.version}`;
}

/** The resource files service.json's `resources` names now (found on disk, not read). */
function discovered(dir: string, service: unknown): string[] {
  const ignored: Diagnostic[] = []; // the check reports them; here they only make the set differ
  return resourceFiles(dir, path.join(dir, "service.json"), service, ignored).map((f) => path.relative(dir, f));
}

/**
 * The hash of a generation's inputs: the generator, the target, the resource files service.json's
 * `resources` finds (a new file changes it), and the path and contents of every definition file
 * read (service.json, resources, and whatever their $refs reach). Undefined when service.json is
 * not plain JSON or a source is gone or may not be read: the sources come from OUT's manifest, which
 * is as untrusted as the definitions, so they are read as the check reads (inside `dir`, regular
 * files, within the size limits; a FIFO or "../../dev/zero" there is never opened).
 */
export function inputsHash(dir: string, sources: readonly string[], target: Target): string | undefined {
  const reader = new FileReader(new ProjectRoots(dir), DEFAULT_LIMITS);
  const read = (rel: string) => {
    const got = reader.read(path.resolve(dir, rel));
    return "bytes" in got ? got.bytes : undefined;
  };
  const serviceBytes = read("service.json");
  let service: unknown;
  try {
    service = JSON.parse(serviceBytes?.toString("utf8") ?? "");
  } catch {
    return undefined; // the check says what is wrong with it
  }
  const parts = [generatorFingerprint(), target, discovered(dir, service).join("\0")];
  for (const rel of sources) {
    const contents = rel === "service.json" ? serviceBytes : read(rel);
    if (!contents) return undefined;
    parts.push(`${rel}\0${hashOf(contents)}`);
  }
  return hashOf(parts.join("\n"));
}

/** Definition files as the manifest records them: relative to the definitions folder, sorted. */
export function relativeSources(dir: string, sources: readonly string[]): string[] {
  return sources.map((f) => path.relative(dir, f)).sort();
}

/**
 * The plan of a regenerate that has nothing to do, or undefined when it may have something to do
 * (then the full check → emit → plan runs). Taken only after a generation whose check was clean (no
 * warnings to print again), with no interrupted run to recover in `out`.
 */
export function upToDate(dir: string, out: string, target: Target): Plan | undefined {
  const manifest = readManifest(out);
  if (!manifest?.inputs || !manifest.sources || manifest.clean !== true) return undefined;
  if (fs.existsSync(path.join(out, STATE_DIR, "journal.json")) || fs.existsSync(path.join(out, STATE_DIR, "staging"))) return undefined;
  const inputs = inputsHash(dir, manifest.sources, target);
  return inputs === undefined ? undefined : planUnchanged(out, manifest, inputs);
}
