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
import { hashOf, readManifest, readStatCache, STATE_DIR, type StatCache } from "./manifest.js";
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
  return inputsOf(dir, sources, target)?.hash;
}

/**
 * inputsHash, and the hash of each source it read (by its path relative to `dir`). `readBefore`: bytes read
 * already, by absolute path, hashed as they are (generate's check, load/read-file.ts recordReads: the inputs the
 * model was built from; the up-to-date check's sourceChanged); a source not among them is read.
 */
export function inputsOf(dir: string, sources: readonly string[], target: Target, readBefore?: ReadonlyMap<string, Buffer>): { hash: string; files: ReadonlyMap<string, string> } | undefined {
  const reader = new FileReader(new ProjectRoots(dir), DEFAULT_LIMITS);
  const read = (rel: string) => {
    const file = path.resolve(dir, rel);
    const before = readBefore?.get(file);
    if (before !== undefined) return before;
    const got = reader.read(file);
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
  const files = new Map<string, string>();
  for (const rel of sources) {
    const contents = rel === "service.json" ? serviceBytes : read(rel);
    if (!contents) return undefined;
    const hash = hashOf(contents);
    files.set(rel, hash);
    parts.push(`${rel}\0${hash}`);
  }
  return { hash: hashOf(parts.join("\n")), files };
}

/**
 * What the stat cache records of each source a generation hashed (`hashes`, by its path relative to `dir`, as
 * inputsOf gives them): its size, mtime and hash, by its absolute path (commitPlan's `sources`). A file that
 * cannot be stat'ed is left out.
 */
export function sourceStats(dir: string, hashes: ReadonlyMap<string, string>): StatCache {
  const out: Record<string, StatCache[string]> = {};
  for (const [rel, hash] of hashes) {
    const file = path.resolve(dir, rel);
    try {
      const st = fs.statSync(file);
      out[file] = [st.size, st.mtimeMs, hash];
    } catch {
      // gone: the next check reads what is there
    }
  }
  return out;
}

/**
 * True when a source is known changed without hashing them all: its size or mtime is not what the stat cache
 * recorded and its contents no longer have the recorded hash (a file only touched is read, and is no change),
 * or it is gone. False decides nothing (inputsOf does, taking the bytes read here from `read`, by absolute path).
 */
function sourceChanged(dir: string, sources: readonly string[], stats: StatCache, read: Map<string, Buffer>): boolean {
  const reader = new FileReader(new ProjectRoots(dir), DEFAULT_LIMITS);
  for (const rel of sources) {
    const file = path.resolve(dir, rel);
    const cached = stats[file];
    if (cached?.[2] === undefined) continue;
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      return true;
    }
    if (st.size === cached[0] && st.mtimeMs === cached[1]) continue;
    const got = reader.read(file);
    if (!("bytes" in got) || hashOf(got.bytes) !== cached[2]) return true;
    read.set(file, got.bytes);
  }
  return false;
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
  // A definition file whose size or mtime is no longer the one the stat cache recorded, and whose contents no
  // longer have the hash it recorded, has changed: not up to date, known without hashing every file. Anything
  // else decides nothing: the hash of all of them does (a file rewritten within the same millisecond and size
  // is still caught).
  const read = new Map<string, Buffer>();
  if (sourceChanged(dir, manifest.sources, readStatCache(out), read)) return undefined;
  const inputs = inputsOf(dir, manifest.sources, target, read)?.hash;
  return inputs === undefined ? undefined : planUnchanged(out, manifest, inputs);
}
