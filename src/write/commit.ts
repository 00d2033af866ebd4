/**
 * The only writer of the output folder. A generation is staged in OUT/.resourcery/staging, then a
 * journal is written (the commit point) and applied; an interrupted run is rolled forward from the
 * journal, or its staging discarded, by the next one. Unchanged files are never touched. Every path
 * written, renamed or removed is confined to its folder (write/confine.ts): never through a link.
 */
import fs from "node:fs";
import { assertInternal } from "../diagnostics/internal-error.js";
import { dataOf, isStaged } from "../emit/emitted-file.js";
import path from "node:path";
import { confined, makeDirs, openForWrite, unsafeReason } from "./confine.js";
import { hashOf, hashOfFile, MANIFEST, STAT_CACHE, STATE_DIR, type Manifest, type ManifestEntry, type ManifestInfo, type StatCache } from "./manifest.js";
import { OutError } from "./out-error.js";
import type { Plan } from "./plan.js";
import { freshTemp, type FreshStage } from "./stage.js";

const STAGING = `${STATE_DIR}/staging`;
/** OUT/.resourcery/journal.json: a committed generation not yet completely applied. */
export const JOURNAL = `${STATE_DIR}/journal.json`;

interface Journal {
  readonly moves: readonly (readonly [string, string])[];
  readonly deletes: readonly string[];
  readonly manifest: Manifest;
}

/** Writes `rel` inside `root` (its folders created), fsynced when `durable`. */
function writeFile(root: string, rel: string, contents: string | Uint8Array, durable: boolean): void {
  makeDirs(root, path.posix.dirname(rel));
  const fd = openForWrite(root, rel);
  try {
    fs.writeFileSync(fd, contents);
    if (durable) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The journal of an interrupted run, refused when it names a path outside OUT (edited, or made to). */
function readJournal(out: string): Journal {
  const file = confined(out, JOURNAL);
  let journal: Journal;
  try {
    journal = JSON.parse(fs.readFileSync(file, "utf8")) as Journal;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code) throw error;
    throw new OutError(`cannot finish the interrupted generation in ${out}: ${file} is not valid JSON; remove it and run again`);
  }
  const paths = [...(journal.moves ?? []).flat(), ...(journal.deletes ?? []), ...Object.keys(journal.manifest?.files ?? {})];
  const bad = paths.find((p) => typeof p !== "string" || unsafeReason(p) !== undefined);
  const staged = (journal.moves ?? []).every(([from]) => typeof from === "string" && from.startsWith(`${STAGING}/`));
  if (bad !== undefined || !staged || !Array.isArray(journal.moves) || !Array.isArray(journal.deletes)) {
    throw new OutError(`cannot finish the interrupted generation in ${out}: ${file} names a path outside it (${JSON.stringify(bad)}); it was edited or is corrupt: remove it and run again`);
  }
  return journal;
}

/** Finishes or discards whatever an interrupted earlier run left in `out`. */
export function recover(out: string): "none" | "rolled-forward" | "discarded" {
  if (fs.existsSync(confined(out, JOURNAL))) {
    apply(out, readJournal(out));
    return "rolled-forward";
  }
  const staging = confined(out, STAGING);
  if (fs.existsSync(staging)) {
    fs.rmSync(staging, { recursive: true, force: true });
    return "discarded";
  }
  return "none";
}

/**
 * Writes the planned generation into `out` and records it in the manifest. A first generation (no
 * `out` yet) is built in a sibling folder and renamed into place: one atomic step, and a killed run
 * leaves no `out` at all. Its files may have been written into that folder already (`stage`). `sources`: the
 * size and mtime of each definition file the generation read, by its absolute path, recorded in the stat cache
 * beside the generated files' (the up-to-date check's shortcut, write/inputs.ts).
 */
export function commitPlan(out: string, plan: Plan, info: ManifestInfo, stage?: FreshStage, sources: StatCache = {}): void {
  if (stage && fs.existsSync(out)) throw new OutError(`${out} was created by something else during the generation; nothing was written to it`);
  if (!fs.existsSync(out)) {
    const temp = stage?.root ?? freshTemp(out);
    if (!stage) {
      fs.rmSync(temp, { recursive: true, force: true }); // left by a killed first generation
      if (!fs.existsSync(path.dirname(temp))) fs.mkdirSync(path.dirname(temp), { recursive: true });
      fs.mkdirSync(temp);
    }
    try {
      commitFresh(out, temp, plan, info, sources);
    } catch (error) {
      if (!stage) removeQuietly(temp); // a staged one is discarded by its owner
      throw error;
    }
    return;
  }
  commitOver(out, plan, info, sources);
}

/** A first generation: its files written into `temp` (or staged there already), then `temp` renamed to `out`. */
function commitFresh(out: string, temp: string, plan: Plan, info: ManifestInfo, sources: StatCache): void {
  const files: Record<string, ManifestEntry> = {};
  const stats: Record<string, StatCache[string]> = { ...sources };
  for (const step of plan.steps) {
    if (step.kind !== "create") continue;
    if (isStaged(step.file)) {
      files[step.file.path] = { hash: step.file.hash, owner: step.file.owner, ...keyOf(step.file) };
      if (step.file.owner === "generated") stats[step.file.path] = step.file.stat;
      continue;
    }
    writeFile(temp, step.file.path, dataOf(step.file), false);
    files[step.file.path] = { hash: hashOfFile(step.file), owner: step.file.owner, ...keyOf(step.file) };
    if (step.file.owner === "generated") stats[step.file.path] = statOf(path.join(temp, step.file.path));
  }
  writeFile(temp, MANIFEST, manifestText(manifestOf(info, files)), true);
  writeStatCache(temp, stats);
  if (fs.existsSync(out)) throw new OutError(`${out} was created by something else during the generation; nothing was written to it`);
  fs.renameSync(temp, out); // renaming the folder keeps every file's mtime
}

/**
 * A regeneration: every path it writes or removes checked first (a link refused before anything is
 * written), the new files staged, the journal written (the commit point) and applied. A failure before
 * the commit point removes the staging folder: OUT is as it was.
 */
function commitOver(out: string, plan: Plan, info: ManifestInfo, sources: StatCache): void {
  for (const step of plan.steps) {
    if (step.kind === "create" || step.kind === "update" || step.kind === "merge") confined(out, step.file.path);
    if (step.kind === "delete") confined(out, step.path);
  }
  const files: Record<string, ManifestEntry> = {};
  const stats: Record<string, StatCache[string]> = { ...sources };
  const moves: [string, string][] = [];
  const deletes: string[] = [];
  try {
    stageAll(out, plan, files, stats, moves, deletes);
  } catch (error) {
    discardStaging(out);
    throw error;
  }
  const journal: Journal = { moves, deletes, manifest: manifestOf(info, files) };
  if (moves.length === 0 && deletes.length === 0 && sameText(path.join(out, MANIFEST), manifestText(journal.manifest))) {
    if (!sameText(path.join(out, STAT_CACHE), statCacheText(stats))) writeStatCache(out, stats); // touched files: hashed once, not again
    return; // a no-op regenerate writes nothing else
  }
  try {
    writeFile(out, `${JOURNAL}.tmp`, JSON.stringify(journal), true);
    fs.renameSync(confined(out, `${JOURNAL}.tmp`), confined(out, JOURNAL)); // the commit point
  } catch (error) {
    discardStaging(out);
    throw error;
  }
  apply(out, journal);
  writeStatCache(out, stats); // after the commit: a run killed before this only leaves the cache stale
}

/** Removes what a regeneration staged before its commit point (best effort: the next run does it too). */
function discardStaging(out: string): void {
  for (const rel of [STAGING, `${JOURNAL}.tmp`]) removeQuietly(() => confined(out, rel));
}

/** Removes a folder or file this run created, if it can (on a read-only disk it could not create it either). */
function removeQuietly(target: string | (() => string)): void {
  try {
    fs.rmSync(typeof target === "string" ? target : target(), { recursive: true, force: true });
  } catch {
    // the failure being reported is what matters; the next run removes what is left
  }
}

/** Writes the new files of a regeneration into the staging folder and records what to move and delete. */
function stageAll(
  out: string,
  plan: Plan,
  files: Record<string, ManifestEntry>,
  stats: Record<string, StatCache[string]>,
  moves: [string, string][],
  deletes: string[],
): void {
  plan.steps.forEach((step, i) => {
    if (step.kind === "delete") deletes.push(step.path);
    if (step.kind === "orphan") files[step.path] = { hash: step.hash, owner: "user" }; // still the user's: tracked until deleted
    if (step.kind === "absent") files[step.path] = { hash: step.hash, owner: "user", deleted: true }; // so that it stays deleted
    if (step.kind === "unchanged" || step.kind === "keep") {
      files[step.file.path] = { hash: hashOfFile(step.file), owner: step.file.owner, ...keyOf(step.file) };
      // (A file left unrendered was found as the stat cache has it while planning: recorded as it is, not statted again.)
      if (step.file.owner === "generated") stats[step.file.path] = (step.kind === "unchanged" ? step.stat : undefined) ?? statOf(path.join(out, step.file.path));
    }
    if (step.kind === "create" || step.kind === "update" || step.kind === "merge") {
      assertInternal(!isStaged(step.file), `${step.file.path} was staged for a first generation, but ${out} exists`);
      const staged = `${STAGING}/${i}`;
      // Staged files need no fsync of their own: a killed run loses nothing the page cache holds, and
      // the journal (fsynced) is written only after every staged file is complete.
      writeFile(out, staged, dataOf(step.file), false);
      files[step.file.path] = { hash: hashOfFile(step.file), owner: step.file.owner, ...keyOf(step.file) };
      // The rename into place keeps the staged file's size and mtime: recorded now.
      if (step.file.owner === "generated") stats[step.file.path] = statOf(path.join(out, staged));
      moves.push([staged, step.file.path]);
    }
  });
}

/** The key a generated file's manifest entry records, if it has one (emit/keys.ts). */
function keyOf(file: { readonly owner: string; readonly key?: string }): { key?: string } {
  return file.owner === "generated" && file.key !== undefined ? { key: file.key } : {};
}

/** A file's size and mtime, for the stat cache. */
function statOf(file: string): StatCache[string] {
  const st = fs.statSync(file);
  return [st.size, st.mtimeMs];
}

function statCacheText(stats: Record<string, StatCache[string]>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(stats).sort(([a], [b]) => (a < b ? -1 : 1)))) + "\n";
}

/**
 * Replaces the stat cache (not durably: it is only a cache). A disk error leaves the old one, which
 * only makes the next up-to-date check hash the files whose mtime it does not know.
 */
function writeStatCache(root: string, stats: Record<string, StatCache[string]>): void {
  try {
    writeFile(root, `${STAT_CACHE}.tmp`, statCacheText(stats), false);
    fs.renameSync(confined(root, `${STAT_CACHE}.tmp`), confined(root, STAT_CACHE));
  } catch (error) {
    if (!(error as NodeJS.ErrnoException).code) throw error;
    fs.rmSync(path.join(root, `${STAT_CACHE}.tmp`), { force: true });
  }
}

function manifestOf(info: ManifestInfo, files: Record<string, ManifestEntry>): Manifest {
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { version: 1, ...info, files: sorted };
}

/** Applies a journal; safe to run again after an interruption (every step is idempotent). */
function apply(out: string, journal: Journal): void {
  for (const [staged, target] of journal.moves) {
    const from = confined(out, staged);
    if (!fs.existsSync(from)) continue; // moved by an interrupted earlier apply
    makeDirs(out, path.posix.dirname(target));
    fs.renameSync(from, confined(out, target));
  }
  for (const p of journal.deletes) {
    const file = confined(out, p);
    fs.rmSync(file, { force: true });
    removeEmptyParents(out, path.dirname(file));
  }
  writeFile(out, `${MANIFEST}.tmp`, manifestText(journal.manifest), true);
  fs.renameSync(confined(out, `${MANIFEST}.tmp`), confined(out, MANIFEST));
  fs.rmSync(confined(out, JOURNAL), { force: true });
  fs.rmSync(confined(out, STAGING), { recursive: true, force: true });
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
