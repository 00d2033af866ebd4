/** Compares emitted files with the output folder: what to create, update, keep, delete, and what conflicts. */
import fs from "node:fs";
import path from "node:path";
import { isStaged, type EmittedFile, type PackageFile, type StagedFile } from "../emit/emitted-file.js";
import { assertSafePaths, confined } from "./confine.js";
import { hashOf, hashOfFile, readStatCache, type Manifest, type StatCache } from "./manifest.js";
import { mergePackageJson } from "./merge.js";

export type Step =
  | {
      readonly kind: "create" | "update";
      readonly file: EmittedFile;
      /** A user-owned file the user deleted, created again because the package needs it: what needs it. */
      readonly recreated?: string;
      /** A file of the user's moved here from this path (a renamed collection's hooks), its code kept. */
      readonly movedFrom?: string;
      /** A file of the user's whose uses of renamed generated type names were renamed: what was renamed. */
      readonly renamed?: string;
      /** A file of the user's that gains what the generated wiring imports from it, every line of it kept: what was added. */
      readonly merged?: string;
    }
  /** A file of a first generation, written into its staging folder already (write/stage.ts). */
  | { readonly kind: "create"; readonly file: StagedFile }
  /** `stat`: the file's size and mtime as the plan found them, when it found them as the stat cache has them (the commit records them again without a stat). */
  | { readonly kind: "unchanged"; readonly file: EmittedFile; readonly stat?: StatCache[string] }
  /** A user-owned file that gains what the new generation needs (keys of package.json); nothing of it changes. */
  | { readonly kind: "merge"; readonly file: EmittedFile }
  /** A user-owned file that exists already: never overwritten. */
  | { readonly kind: "keep"; readonly file: EmittedFile }
  /** A generated file of the earlier generation that is no longer emitted. */
  | {
      readonly kind: "delete";
      readonly path: string;
      /** A file of the user's moved to this path (a renamed collection's hooks). */
      readonly movedTo?: string;
    }
  /** A user-owned file of a removed resource or action: kept, and reported. */
  | { readonly kind: "orphan"; readonly path: string; readonly hash: string }
  /** A user-owned file seeded once that the user deleted and nothing needs: not created again, and recorded so. */
  | { readonly kind: "absent"; readonly path: string; readonly hash: string }
  /** A generated file edited by hand, or a file resourcery did not write standing where it would write. */
  | { readonly kind: "conflict"; readonly path: string; readonly reason: "edited" | "foreign" };

export interface Plan {
  readonly steps: readonly Step[];
  readonly conflicts: readonly Extract<Step, { kind: "conflict" }>[];
}

/**
 * The hash of the file at `rel` in `out` as it is now, or undefined when there is none. A file whose size and
 * mtime are those the stat cache recorded when the last generation wrote it is that generation's (as git's
 * index tells, and planUnchanged): its hash is the manifest's, and it is not read.
 */
function diskHash(out: string, rel: string, previous: Manifest | undefined, stats: StatCache): string | undefined {
  return diskState(out, rel, previous, stats)?.hash;
}

/** diskHash, and the stat cache's entry when the file's size and mtime are still those it has (else undefined). */
function diskState(out: string, rel: string, previous: Manifest | undefined, stats: StatCache): { hash: string; cached?: StatCache[string] } | undefined {
  const file = path.join(out, rel);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return undefined;
  }
  if (!stat.isFile()) return undefined;
  const known = previous?.files[rel];
  const cached = stats[rel];
  if (known !== undefined && known.owner === "generated" && cached !== undefined && cached[0] === stat.size && cached[1] === stat.mtimeMs) return { hash: known.hash, cached };
  return { hash: hashOf(fs.readFileSync(file)) };
}

/** `file` without its encoded contents (its text is about to be replaced). */
function withoutBytes(file: EmittedFile): EmittedFile {
  const { bytes: _bytes, ...rest } = file;
  return rest;
}

function readIfExists(file: string): Buffer | undefined {
  try {
    return fs.statSync(file).isFile() ? fs.readFileSync(file) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A file a regeneration left unrendered (EmittedFile.known) that changed meanwhile (another run wrote OUT
 * between the start of this one and its lock): `generate` then emits again, rendering every file.
 */
export class StaleKnownFile extends Error {
  constructor(readonly path: string) {
    super(`${path} changed while this generation ran`);
  }
}

/**
 * The steps that turn `out` into the new generation. `force` overwrites hand edits instead of refusing.
 * An unsafe emitted path is a bug (InternalError); a symbolic link on the way to a file the plan
 * writes or deletes is refused (OutError): both before anything is written, in a dry run too.
 */
export function planWrite(out: string, files: readonly PackageFile[], previous: Manifest | undefined, force: boolean): Plan {
  assertSafePaths(files.map((f) => f.path));
  const steps: Step[] = [];
  const emitted = new Set(files.map((f) => f.path));
  const stats = previous === undefined ? {} : readStatCache(out);
  for (const file of files) {
    if (isStaged(file)) {
      steps.push({ kind: "create", file }); // staged only when OUT did not exist (commitPlan checks it still does not)
      continue;
    }
    const known = previous?.files[file.path];
    if (file.owner === "user") {
      const disk = file.path === "package.json" ? readIfExists(path.join(out, file.path)) : fs.existsSync(path.join(out, file.path)) ? true : undefined;
      const merged = disk instanceof Buffer ? mergePackageJson(disk.toString("utf8"), file.contents) : undefined;
      // Seeded before (the manifest says so) and gone since: the user deleted it.
      const deleted = disk === undefined && known?.owner === "user";
      if (deleted && file.required === undefined) steps.push({ kind: "absent", path: file.path, hash: known.hash });
      else if (deleted) steps.push({ kind: "create", file, recreated: file.required });
      else if (disk === undefined) steps.push({ kind: "create", file });
      else if (merged !== undefined) steps.push({ kind: "merge", file: { ...withoutBytes(file), contents: merged } });
      else steps.push({ kind: "keep", file });
      continue;
    }
    if (file.known) {
      // Left unrendered: still so only when the file and the manifest are as they were when the regeneration began.
      const disk = known === undefined || known.key !== file.key || known.hash !== hashOfFile(file) ? undefined : diskState(out, file.path, previous, stats);
      if (disk === undefined || disk.hash !== known!.hash) throw new StaleKnownFile(file.path);
      steps.push({ kind: "unchanged", file, ...(disk.cached !== undefined ? { stat: disk.cached } : {}) });
      continue;
    }
    const disk = diskState(out, file.path, previous, stats);
    if (disk === undefined) {
      steps.push({ kind: "create", file });
      continue;
    }
    const now = disk.hash;
    const hash = hashOfFile(file);
    if (!force && (!known || known.hash !== now) && now !== hash) {
      steps.push({ kind: "conflict", path: file.path, reason: known ? "edited" : "foreign" });
      continue;
    }
    steps.push(now === hash ? { kind: "unchanged", file, ...(disk.cached !== undefined ? { stat: disk.cached } : {}) } : { kind: "update", file });
  }
  for (const [p, entry] of Object.entries(previous?.files ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (emitted.has(p)) continue;
    const now = diskHash(out, p, previous, stats);
    if (now === undefined) continue;
    if (entry.owner === "user") {
      steps.push({ kind: "orphan", path: p, hash: entry.hash });
      continue;
    }
    const edited = now !== entry.hash;
    steps.push(edited && !force ? { kind: "conflict", path: p, reason: "edited" } : { kind: "delete", path: p });
  }
  for (const step of steps) {
    if (step.kind === "delete") confined(out, step.path);
    else if ((step.kind === "create" || step.kind === "update" || step.kind === "merge") && !isStaged(step.file)) confined(out, step.file.path);
  }
  return { steps, conflicts: steps.filter((s): s is Extract<Step, { kind: "conflict" }> => s.kind === "conflict") };
}

/**
 * The plan of a regenerate whose inputs did not change, without emitting anything: every file of
 * the manifest still on disk as it was written (a seed the user deleted still absent). Undefined when
 * anything differs (then emit and plan).
 */
export function planUnchanged(out: string, previous: Manifest | undefined, inputs: string): Plan | undefined {
  if (!previous || previous.inputs !== inputs) return undefined;
  const stats = readStatCache(out);
  const steps: Step[] = [];
  for (const [p, entry] of Object.entries(previous.files)) {
    const file = path.join(out, p);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      if (entry.deleted) {
        steps.push({ kind: "absent", path: p, hash: entry.hash });
        continue;
      }
      return undefined; // a file to create again
    }
    if (entry.deleted) return undefined; // the user wrote it again: the full plan keeps it
    if (!stat.isFile()) return undefined;
    const cached = stats[p];
    const same = cached !== undefined && cached[0] === stat.size && cached[1] === stat.mtimeMs;
    if (entry.owner === "generated" && !same && hashOf(fs.readFileSync(file)) !== entry.hash) {
      return undefined; // edited: the full plan reports it
    }
    const kept: EmittedFile = { path: p, contents: "", owner: entry.owner };
    steps.push(entry.owner === "generated" ? { kind: "unchanged", file: kept } : { kind: "keep", file: kept });
  }
  return { steps, conflicts: [] };
}
