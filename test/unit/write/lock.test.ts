/**
 * The lock of an output folder: one holder at a time, a clear refusal naming the holder when it does
 * not let go, and a holder that is gone (dead pid, reused pid, a lock file left half-written) taken
 * over at once.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { lockFileOf, lockOut } from "../../../src/write/lock.js";
import { OutError } from "../../../src/write/out-error.js";

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-lock-")));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A lock file as a run of process `pid` writes it. */
function holder(pid: number, extra: Record<string, unknown> = {}): string {
  let start: string | undefined;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    start = undefined;
  }
  return JSON.stringify({ pid, host: os.hostname(), start, since: new Date().toISOString(), token: `t${pid}`, ...extra });
}

async function refused(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, OutError);
    return (error as Error).message;
  }
  assert.unreachable("the lock must be refused");
  return "";
}

test("a missing OUT is locked beside it (parents made, and removed again); an existing one inside", async () => {
  const out = path.join(tmp, "new/deep/out");
  const lock = await lockOut(out);
  assert.is(lock.file, path.join(tmp, "new/deep/.out.resourcery-lock"));
  assert.ok(fs.existsSync(lock.file));
  lock.release();
  assert.not.ok(fs.existsSync(path.join(tmp, "new")), "the folders made for the lock are removed");

  const existing = path.join(tmp, "existing");
  fs.mkdirSync(existing);
  const inner = await lockOut(existing);
  assert.is(inner.file, path.join(existing, ".resourcery/lock"));
  assert.is(lockFileOf(existing), inner.file);
  inner.release();
  assert.equal(fs.readdirSync(existing), [], ".resourcery made for the lock is removed");
});

test("a second run waits, then is refused with the holder named; it gets the lock once released", async () => {
  const out = path.join(tmp, "busy");
  fs.mkdirSync(out);
  const first = await lockOut(out);
  const started = Date.now();
  const message = await refused(lockOut(out, 300));
  assert.ok(Date.now() - started >= 300, "it waited");
  assert.match(message, `${out} is being written by another resourcery run (pid ${process.pid}`);
  assert.match(message, `remove ${first.file}`);
  const waiting = lockOut(out, 5_000);
  setTimeout(() => first.release(), 200);
  const second = await waiting;
  assert.ok(fs.existsSync(second.file));
  second.release();
});

test("a lock whose process is dead is taken over at once", async () => {
  const out = path.join(tmp, "dead");
  fs.mkdirSync(path.join(out, ".resourcery"), { recursive: true });
  const gone = spawnSync(process.execPath, ["-e", ""]).pid!;
  fs.writeFileSync(lockFileOf(out), holder(gone));
  const started = Date.now();
  const lock = await lockOut(out, 0);
  assert.ok(Date.now() - started < 1_000);
  assert.match(fs.readFileSync(lock.file, "utf8"), `"pid":${process.pid}`);
  lock.release();
});

test("a live process holds its lock; once killed with SIGKILL, the lock is taken over", async () => {
  const out = path.join(tmp, "live");
  fs.mkdirSync(path.join(out, ".resourcery"), { recursive: true });
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  await new Promise((r) => child.once("spawn", r));
  fs.writeFileSync(lockFileOf(out), holder(child.pid!));
  assert.match(await refused(lockOut(out, 200)), `pid ${child.pid}`);
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
  const lock = await lockOut(out, 0);
  lock.release();
});

test("a first generation's lock beside an existing OUT: waited for while its holder lives, removed once it is gone", async () => {
  const out = path.join(tmp, "renamed");
  fs.mkdirSync(out); // a first generation renamed OUT into place and still holds the lock beside it
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  await new Promise((r) => child.once("spawn", r));
  const sibling = lockFileOf(out, false);
  fs.writeFileSync(sibling, holder(child.pid!));
  assert.match(await refused(lockOut(out, 200)), `pid ${child.pid}`);
  assert.not.ok(fs.existsSync(lockFileOf(out)), "the lock inside OUT is not kept while the run beside it lives");
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL"); // killed between the rename and its release
  await exited;
  const lock = await lockOut(out, 0);
  assert.is(lock.file, lockFileOf(out));
  assert.not.ok(fs.existsSync(sibling), "the lock left beside OUT by the killed run is removed");
  lock.release();
});

test("a pid reused by another process does not keep a lock (its start time differs)", async () => {
  if (!fs.existsSync("/proc/self/stat")) return console.log("  skipped: no /proc here to tell a process's start time");
  const out = path.join(tmp, "reused");
  fs.mkdirSync(path.join(out, ".resourcery"), { recursive: true });
  fs.writeFileSync(lockFileOf(out), holder(process.pid, { start: "1", token: "old" })); // this pid, another process's start
  const lock = await lockOut(out, 0);
  lock.release();
});

test("another machine's lock is never taken over; a lock file left empty is, once old", async () => {
  const out = path.join(tmp, "remote");
  fs.mkdirSync(path.join(out, ".resourcery"), { recursive: true });
  fs.writeFileSync(lockFileOf(out), holder(999_999, { host: "elsewhere.example" }));
  assert.match(await refused(lockOut(out, 0)), "pid 999999 on elsewhere.example");
  fs.writeFileSync(lockFileOf(out), "");
  await refused(lockOut(out, 0)); // being written by a run that just created it
  const old = (Date.now() - 60_000) / 1000;
  fs.utimesSync(lockFileOf(out), old, old);
  const lock = await lockOut(out, 0);
  lock.release();
  assert.not.ok(fs.existsSync(lockFileOf(out)));
});

test("two runs of one process waiting together: each gets the lock in turn, never both", async () => {
  const out = path.join(tmp, "turns");
  fs.mkdirSync(out);
  let holders = 0;
  let most = 0;
  await Promise.all(
    [0, 1, 2, 3].map(async () => {
      const lock = await lockOut(out, 10_000);
      most = Math.max(most, ++holders);
      await new Promise((r) => setTimeout(r, 50));
      holders--;
      lock.release();
    }),
  );
  assert.is(most, 1);
});

test.run();
