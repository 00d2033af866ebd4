/**
 * The exclusive lock of an output folder, held for the whole of a writing generate or docs run: two
 * runs into one OUT would otherwise interleave their trees. A lock file created with O_EXCL records
 * its holder (pid, host, the process's start time); a holder that is gone — killed with kill -9, say —
 * is taken over at once, so a killed run never blocks the next one. The lock is OUT/.resourcery/lock
 * when OUT exists, and `.OUT.resourcery-lock` beside it while it does not (a first generation is
 * renamed into place whole, so nothing is inside it to lock). A run that locks an existing OUT also
 * waits for a live holder of the lock beside it and removes one left by a killed first generation.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { makeDirs } from "./confine.js";
import { STATE_DIR } from "./manifest.js";
import { OutError } from "./out-error.js";

/** How long a run waits for another run's lock before it gives up (ms). */
export const LOCK_WAIT_MS = 5_000;
/** A lock file still empty or unreadable after this long was left by a run killed while creating it (ms). */
const UNREADABLE_STALE_MS = 2_000;

interface Holder {
  readonly pid: number;
  readonly host: string;
  /** The process's start time (Linux /proc clock ticks), which tells a reused pid from the holder. */
  readonly start?: string;
  readonly since: string;
  readonly token: string;
}

/** A held lock. */
export interface OutLock {
  readonly file: string;
  /** Removes the lock (if it is still this run's) and the folders made only to hold it, when empty. */
  release(): void;
}

/** The lock file of `out` (a real path): inside it when it exists, beside it while it does not. */
export function lockFileOf(out: string, exists: boolean = isDirectory(out)): string {
  return exists ? path.join(out, STATE_DIR, "lock") : path.join(path.dirname(out), `.${path.basename(out)}.resourcery-lock`);
}

/**
 * Takes the lock of `out`, waiting up to `waitMs` for another run to release it; throws an OutError
 * naming the holder when it does not. Creates OUT's missing parent folders (they hold the lock).
 */
export async function lockOut(out: string, waitMs: number = LOCK_WAIT_MS): Promise<OutLock> {
  const deadline = Date.now() + waitMs;
  const made: string[] = [];
  for (let round = 0; ; round++) {
    const inside = isDirectory(out);
    if (inside) {
      if (!fs.existsSync(path.join(out, STATE_DIR))) made.push(path.join(out, STATE_DIR));
      makeDirs(out, STATE_DIR);
    } else {
      made.push(...makeParents(path.dirname(out)));
    }
    const file = lockFileOf(out, inside);
    const held = tryCreate(file, round > 20);
    let busy: { file: string; raw: string } | undefined;
    if (held) {
      const lock: OutLock = { file, release: () => release(file, held, made) };
      if (inside !== isDirectory(out)) {
        lock.release(); // OUT was created (or removed) meanwhile: its other lock is the one to hold
        continue;
      }
      // A first generation renames OUT into place while it holds the lock beside it, then releases
      // it: a holder still alive is waited for, one killed in between left that lock behind.
      const sibling = inside ? siblingHolder(out) : undefined;
      if (!sibling) return lock;
      lock.release();
      busy = sibling;
    } else {
      const raw = readRaw(file);
      if (raw === undefined) continue; // released meanwhile
      if (isStale(file, raw)) {
        breakStale(file, raw);
        continue;
      }
      busy = { file, raw };
    }
    if (Date.now() >= deadline) {
      removeEmpty(made);
      throw new OutError(busyMessage(out, busy.file, busy.raw));
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The lock beside an existing OUT when a live run still holds it; a stale one is removed. */
function siblingHolder(out: string): { file: string; raw: string } | undefined {
  const file = lockFileOf(out, false);
  const raw = readRaw(file);
  if (raw === undefined) return undefined;
  if (!isStale(file, raw)) return { file, raw };
  breakStale(file, raw);
  return undefined;
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Creates `dir` and its missing parents; returns those it created, deepest last. */
function makeParents(dir: string): string[] {
  const missing: string[] = [];
  for (let d = dir; !fs.existsSync(d) && path.dirname(d) !== d; d = path.dirname(d)) missing.unshift(d);
  for (const d of missing) {
    try {
      fs.mkdirSync(d);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (!isDirectory(d)) throw new OutError(`cannot create ${d}: a file or a broken symbolic link is in the way`);
    }
  }
  return missing;
}

/** The start time of process `pid` (Linux), to tell a reused pid from the holder; undefined elsewhere. */
function processStart(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]; // field 22, counted after "pid (comm) "
  } catch {
    return undefined;
  }
}

/**
 * Creates the lock file with O_EXCL; its contents, or undefined when it exists already (or its folder
 * was removed meanwhile by a run that made it, unless that keeps happening: `persistent`).
 */
function tryCreate(file: string, persistent: boolean): string | undefined {
  const holder: Holder = { pid: process.pid, host: os.hostname(), start: processStart(process.pid), since: new Date().toISOString(), token: randomUUID() };
  const raw = JSON.stringify(holder);
  let fd: number;
  try {
    fd = fs.openSync(file, "wx");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return undefined;
    if (code === "ENOENT" && !persistent) return undefined; // the next round makes its folder again
    throw error;
  }
  try {
    fs.writeFileSync(fd, raw);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  return raw;
}

function readRaw(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function parse(raw: string): Holder | undefined {
  try {
    const h = JSON.parse(raw) as Holder;
    return typeof h.pid === "number" && typeof h.host === "string" && typeof h.token === "string" ? h : undefined;
  } catch {
    return undefined;
  }
}

/** True when the holder of a lock is gone: its process is dead, or its pid now belongs to another process. */
function isStale(file: string, raw: string): boolean {
  const holder = parse(raw);
  if (!holder) return ageMs(file) > UNREADABLE_STALE_MS; // killed between creating and writing it
  if (holder.host !== os.hostname()) return false; // another machine's process: cannot be told dead
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
  const start = processStart(holder.pid);
  return holder.start !== undefined && start !== undefined && start !== holder.start;
}

function ageMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Removes a stale lock, unless another run took it over meanwhile: breakers take turns through an
 * O_EXCL `.break` file, and only the lock that was read as stale is removed.
 */
function breakStale(file: string, raw: string): void {
  const breaker = `${file}.break`;
  let fd: number;
  try {
    fd = fs.openSync(breaker, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    if (ageMs(breaker) > UNREADABLE_STALE_MS) fs.rmSync(breaker, { force: true }); // its breaker was killed
    return;
  }
  try {
    if (readRaw(file) === raw) fs.rmSync(file, { force: true });
  } finally {
    fs.closeSync(fd);
    fs.rmSync(breaker, { force: true });
  }
}

function release(file: string, raw: string, made: readonly string[]): void {
  try {
    if (readRaw(file) === raw) fs.rmSync(file, { force: true });
  } catch {
    // a lock that cannot be removed is taken over by the next run: its holder is gone
  }
  removeEmpty(made);
}

/** Removes the folders made to hold the lock, deepest first, where they are (still) empty. */
function removeEmpty(made: readonly string[]): void {
  for (const dir of [...made].reverse()) {
    try {
      fs.rmdirSync(dir);
    } catch {
      // not empty (a generation is in it now), or gone
    }
  }
}

function busyMessage(out: string, file: string, raw: string): string {
  const holder = parse(raw);
  const who = holder ? `another resourcery run (pid ${holder.pid} on ${holder.host}, since ${holder.since})` : "another resourcery run";
  return `${out} is being written by ${who}; nothing was written. Run again when it has finished (if no such run exists, remove ${file})`;
}
