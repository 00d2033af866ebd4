/**
 * The only writer of the output folder. A generation is staged in OUT/.resourcery/staging, then a
 * journal is written (the commit point) and applied; an interrupted run is rolled forward from the
 * journal, or its staging discarded, by the next one. Unchanged files are never touched.
 */
import fs from "node:fs";
import { assertInternal } from "../diagnostics/internal-error.js";
import { isStaged } from "../emit/emitted-file.js";
import path from "node:path";
import { hashOf, MANIFEST, STAT_CACHE, STATE_DIR, type Manifest, type ManifestEntry, type ManifestInfo, type StatCache } from "./manifest.js";
import type { Plan } from "./plan.js";
import { freshTemp, type FreshStage } from "./stage.js";

const STAGING = `${STATE_DIR}/staging`;
const JOURNAL = `${STATE_DIR}/journal.json`;

interface Journal {
  readonly moves: readonly (readonly [string, string])[];
  readonly deletes: readonly string[];
  readonly manifest: Manifest;
}

function writeStaged(file: string, contents: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, contents);
}

function writeDurably(file: string, contents: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, "w");
  try {
    fs.writeSync(fd, contents);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Finishes or discards whatever an interrupted earlier run left in `out`. */
export function recover(out: string): "none" | "rolled-forward" | "discarded" {
  const journal = path.join(out, JOURNAL);
  if (fs.existsSync(journal)) {
    apply(out, JSON.parse(fs.readFileSync(journal, "utf8")) as Journal);
    return "rolled-forward";
  }
  if (fs.existsSync(path.join(out, STAGING))) {
    fs.rmSync(path.join(out, STAGING), { recursive: true, force: true });
    return "discarded";
  }
  return "none";
}

/**
 * Writes the planned generation into `out` and records it in the manifest. A first generation (no
 * `out` yet) is built in a sibling folder and renamed into place: one atomic step, and a killed run
 * leaves no `out` at all. Its files may have been written into that folder already (`stage`).
 */
export function commitPlan(out: string, plan: Plan, info: ManifestInfo, stage?: FreshStage): void {
  if (stage && fs.existsSync(out)) throw new Error(`${out} was created by something else during the generation; nothing was written to it`);
  if (!fs.existsSync(out)) {
    const temp = stage?.root ?? freshTemp(out);
    if (!stage) fs.rmSync(temp, { recursive: true, force: true }); // left by a killed first generation
    const files: Record<string, ManifestEntry> = {};
    const stats: Record<string, StatCache[string]> = {};
    for (const step of plan.steps) {
      if (step.kind !== "create") continue;
      if (isStaged(step.file)) {
        files[step.file.path] = { hash: step.file.hash, owner: step.file.owner };
        if (step.file.owner === "generated") stats[step.file.path] = step.file.stat;
        continue;
      }
      const file = path.join(temp, step.file.path);
      writeStaged(file, step.file.contents);
      files[step.file.path] = { hash: hashOf(step.file.contents), owner: step.file.owner };
      if (step.file.owner === "generated") stats[step.file.path] = statOf(file);
    }
    writeDurably(path.join(temp, MANIFEST), manifestText(manifestOf(info, files)));
    writeStatCache(temp, stats);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.renameSync(temp, out); // renaming the folder keeps every file's mtime
    return;
  }
  const files: Record<string, ManifestEntry> = {};
  const stats: Record<string, StatCache[string]> = {};
  const moves: [string, string][] = [];
  const deletes: string[] = [];
  plan.steps.forEach((step, i) => {
    if (step.kind === "delete") deletes.push(step.path);
    if (step.kind === "orphan") files[step.path] = { hash: step.hash, owner: "user" }; // still the user's: tracked until deleted
    if (step.kind === "unchanged" || step.kind === "keep") {
      files[step.file.path] = { hash: hashOf(step.file.contents), owner: step.file.owner };
      if (step.file.owner === "generated") stats[step.file.path] = statOf(path.join(out, step.file.path));
    }
    if (step.kind === "create" || step.kind === "update" || step.kind === "merge") {
      assertInternal(!isStaged(step.file), `${step.file.path} was staged for a first generation, but ${out} exists`);
      const staged = `${STAGING}/${i}`;
      // Staged files need no fsync of their own: a killed run loses nothing the page cache holds, and
      // the journal (fsynced) is written only after every staged file is complete.
      writeStaged(path.join(out, staged), step.file.contents);
      files[step.file.path] = { hash: hashOf(step.file.contents), owner: step.file.owner };
      // The rename into place keeps the staged file's size and mtime: recorded now.
      if (step.file.owner === "generated") stats[step.file.path] = statOf(path.join(out, staged));
      moves.push([staged, step.file.path]);
    }
  });
  const journal: Journal = { moves, deletes, manifest: manifestOf(info, files) };
  if (moves.length === 0 && deletes.length === 0 && sameText(path.join(out, MANIFEST), manifestText(journal.manifest))) {
    if (!sameText(path.join(out, STAT_CACHE), statCacheText(stats))) writeStatCache(out, stats); // touched files: hashed once, not again
    return; // a no-op regenerate writes nothing else
  }
  const temp = path.join(out, `${JOURNAL}.tmp`);
  writeDurably(temp, JSON.stringify(journal));
  fs.renameSync(temp, path.join(out, JOURNAL)); // the commit point
  apply(out, journal);
  writeStatCache(out, stats); // after the commit: a run killed before this only leaves the cache stale
}

/** A file's size and mtime, for the stat cache. */
function statOf(file: string): StatCache[string] {
  const st = fs.statSync(file);
  return [st.size, st.mtimeMs];
}

function statCacheText(stats: Record<string, StatCache[string]>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(stats).sort(([a], [b]) => (a < b ? -1 : 1)))) + "\n";
}

/** Replaces the stat cache (not durably: it is only a cache). */
function writeStatCache(out: string, stats: Record<string, StatCache[string]>): void {
  const file = path.join(out, STAT_CACHE);
  fs.writeFileSync(`${file}.tmp`, statCacheText(stats));
  fs.renameSync(`${file}.tmp`, file);
}

function manifestOf(info: ManifestInfo, files: Record<string, ManifestEntry>): Manifest {
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { version: 1, ...info, files: sorted };
}

/** Applies a journal; safe to run again after an interruption (every step is idempotent). */
function apply(out: string, journal: Journal): void {
  for (const [staged, target] of journal.moves) {
    const from = path.join(out, staged);
    if (!fs.existsSync(from)) continue; // moved by an interrupted earlier apply
    fs.mkdirSync(path.dirname(path.join(out, target)), { recursive: true });
    fs.renameSync(from, path.join(out, target));
  }
  for (const p of journal.deletes) {
    fs.rmSync(path.join(out, p), { force: true });
    removeEmptyParents(out, path.dirname(path.join(out, p)));
  }
  const manifestTemp = path.join(out, `${MANIFEST}.tmp`);
  writeDurably(manifestTemp, manifestText(journal.manifest));
  fs.renameSync(manifestTemp, path.join(out, MANIFEST));
  fs.rmSync(path.join(out, JOURNAL), { force: true });
  fs.rmSync(path.join(out, STAGING), { recursive: true, force: true });
}

function removeEmptyParents(root: string, dir: string): void {
  const top = path.resolve(root);
  let d = path.resolve(dir);
  while (d.startsWith(top + path.sep) && fs.existsSync(d) && fs.readdirSync(d).length === 0) {
    fs.rmdirSync(d);
    d = path.dirname(d);
  }
}

function manifestText(manifest: Manifest): string {
  return JSON.stringify(manifest, null, 2) + "\n";
}

function sameText(file: string, text: string): boolean {
  try {
    return fs.readFileSync(file, "utf8") === text;
  } catch {
    return false;
  }
}
