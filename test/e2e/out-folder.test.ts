/**
 * The output folder, through the built CLI (bin/run.js) as a user runs it: nothing is written through
 * a symbolic link; OUT is refused where writing could harm something else; a full, read-only or
 * forbidden disk is one line naming OUT, with OUT as it was; OUT is locked, so two generates at once
 * leave one complete generation; and a generate killed with SIGKILL leaves the old or the new
 * generation, which the next generate finishes (its stale lock and staging cleaned up).
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { binRun, repoRoot } from "../helpers/cli.js";

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-out-folder-")));
const library = path.join(repoRoot, "examples/library");
const directory = path.join(repoRoot, "examples/directory");
const mounts: string[] = [];
const children: import("node:child_process").ChildProcess[] = [];
test.after(() => {
  for (const child of children) child.kill("SIGKILL");
  for (const m of mounts.reverse()) spawnSync("umount", ["-l", m]);
  fs.rmSync(tmp, { recursive: true, force: true });
});

type Json = Record<string, any>;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function cli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Run {
  const r = spawnSync(process.execPath, [binRun, ...args], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function cliAsync(args: readonly string[]): Promise<Run> {
  const child = spawn(process.execPath, [binRun, ...args], { env: { ...process.env, NO_COLOR: "1" } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

/** A refusal as the user sees it: exit 1, one line on stderr saying `pattern`, no stack, no "internal error". */
function assertRefused(r: Run, pattern: string | RegExp, what: string): void {
  assert.is(r.code, 1, `${what}: exit 1\n${r.stdout}${r.stderr}`);
  const lines = r.stderr.trim().split("\n");
  assert.is(lines.length, 1, `${what}: one line\n${r.stderr}`);
  assert.match(lines[0]!, pattern, what);
  assert.not.match(r.stderr, "internal error", what);
  assert.not.match(r.stderr, /\n\s+at /, what);
}

/**
 * Every entry under `dir` with its contents (a link as its target, never followed); `.resourcery` too unless
 * `bare` (which keeps only its generated file, the recorded wire contract).
 */
function tree(dir: string, bare = false): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      const rel = path.relative(dir, p);
      if (bare && rel.startsWith(".resourcery") && rel !== ".resourcery" && rel !== path.join(".resourcery", "contract.json")) continue;
      if (e.isSymbolicLink()) out[rel] = `link:${fs.readlinkSync(p)}`;
      else if (e.isDirectory()) walk(p);
      else out[rel] = fs.readFileSync(p, "utf8");
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * OUT holds exactly one complete generation: its manifest lists every file outside .resourcery, each
 * generated one with the hash of what is on disk, and (`runLeftovers`) nothing of a run is left: lock, staging,
 * journal, sibling folders.
 */
function assertOneGeneration(out: string, what: string, runLeftovers = true): Json {
  const manifest = JSON.parse(fs.readFileSync(path.join(out, ".resourcery/manifest.json"), "utf8")) as Json;
  const files = tree(out, true);
  assert.equal(Object.keys(files).sort(), Object.keys(manifest.files).sort(), `${what}: the manifest lists exactly the files in OUT`);
  for (const [file, contents] of Object.entries(files)) {
    // A file of the user's (kept, never overwritten) is recorded with what the generation would seed.
    if (manifest.files[file].owner === "generated") assert.is(sha(contents), manifest.files[file].hash, `${what}: ${file} is whole and as recorded`);
  }
  if (!runLeftovers) return manifest;
  for (const left of [".resourcery/lock", ".resourcery/staging", ".resourcery/journal.json"]) assert.not.ok(fs.existsSync(path.join(out, left)), `${what}: no ${left}`);
  assertNoSiblings(out, what);
  return manifest;
}

function assertNoSiblings(out: string, what: string): void {
  for (const sibling of [`.${path.basename(out)}.resourcery-lock`, `.${path.basename(out)}.resourcery-tmp`]) {
    assert.not.ok(fs.existsSync(path.join(path.dirname(out), sibling)), `${what}: no ${sibling}`);
  }
}

/** A copy of the library example, changed by `change` (service.json and the resource files as JSON). */
function defsFrom(name: string, change: (service: Json, resources: Map<string, Json>) => void = () => {}): string {
  const dir = path.join(tmp, name);
  fs.cpSync(library, dir, { recursive: true });
  const service = JSON.parse(fs.readFileSync(path.join(dir, "service.json"), "utf8")) as Json;
  const resources = new Map<string, Json>();
  change(service, resources);
  fs.writeFileSync(path.join(dir, "service.json"), JSON.stringify(service, null, 2));
  for (const [file, value] of resources) fs.writeFileSync(path.join(dir, file), JSON.stringify(value, null, 2));
  return dir;
}

/** The library with a new resource and a changed book: a regenerate creates, updates and keeps files. */
const evolved = defsFrom("evolved", (service, resources) => {
  const book = JSON.parse(fs.readFileSync(path.join(library, "resources/book.json"), "utf8")) as Json;
  book.properties.language = { type: "string", enum: ["en", "fr"] };
  resources.set("resources/book.json", book);
  resources.set("resources/publisher.json", { title: "Publisher", type: "object", "x-collection": "publishers", required: ["name"], additionalProperties: false, properties: { name: { type: "string", minLength: 1 } } });
  service.resources.push("resources/publisher.json");
});

const NOUNS = "albums badges cameras desks engines folders gardens hammers islands jackets kettles lamps maps needles oranges pencils quilts rivers saddles tables".split(" ");
/** The library with twenty more resources (a generation long enough to be killed in the middle); `note` changes every one. */
const many = (name: string, note: string) =>
  defsFrom(name, (service, resources) => {
    for (const noun of NOUNS) {
      const properties = { name: { type: "string", minLength: 1 }, size: { type: "integer", minimum: 0 }, [note]: { type: "string" } };
      resources.set(`resources/${noun}.json`, { title: noun.slice(0, -1), type: "object", "x-collection": noun, required: ["name"], additionalProperties: false, properties });
      service.resources.push(`resources/${noun}.json`);
    }
  });

test("a generated folder replaced by a symbolic link is refused: nothing is written, through the link or anywhere", () => {
  const out = path.join(tmp, "linked");
  assert.is(cli(["generate", library, "--out", out]).code, 0);
  const elsewhere = path.join(tmp, "linked-elsewhere");
  fs.mkdirSync(elsewhere);
  fs.rmSync(path.join(out, "src/generated"), { recursive: true });
  fs.symlinkSync(elsewhere, path.join(out, "src/generated"));
  const before = tree(out);
  for (const args of [[], ["--force"], ["--dry-run"]]) {
    const r = cli(["generate", evolved, "--out", out, ...args]);
    assertRefused(r, `resourcery generate: refusing to write through ${out}/src/generated (to ${elsewhere}): it is a symbolic link`, `generate ${args.join(" ")}`);
    assert.equal(fs.readdirSync(elsewhere), [], "nothing was written into the link's target");
    assert.equal(tree(out), before, "OUT is as it was");
  }
  // resourcery's own folder as a link: refused too (the lock would be written through it).
  const state = path.join(tmp, "linked-state");
  fs.mkdirSync(state);
  fs.rmSync(path.join(out, "src/generated"));
  fs.renameSync(path.join(out, ".resourcery"), path.join(state, ".resourcery"));
  fs.symlinkSync(path.join(state, ".resourcery"), path.join(out, ".resourcery"));
  const stateBefore = tree(state);
  assertRefused(cli(["generate", evolved, "--out", out]), `refusing to write through ${out}/.resourcery`, "a linked .resourcery");
  assert.equal(tree(state), stateBefore);
  // docs: a linked folder of the reference.
  const site = path.join(tmp, "linked-site");
  assert.is(cli(["docs", library, "--out", site]).code, 0);
  fs.rmSync(path.join(site, "resources"), { recursive: true });
  fs.symlinkSync(elsewhere, path.join(site, "resources"));
  assertRefused(cli(["docs", evolved, "--out", site]), `resourcery docs: refusing to write through ${site}/resources`, "docs");
  assert.equal(fs.readdirSync(elsewhere), []);
});

test("OUT is refused when it is the definitions folder, inside or around it, the root or the home folder", () => {
  const project = path.join(tmp, "rules");
  const defs = path.join(project, "defs");
  fs.cpSync(library, defs, { recursive: true });
  const before = tree(project);
  const cases: [string, string[], string, NodeJS.ProcessEnv?][] = [
    ["the definitions folder", ["--out", defs], "it is the definitions folder"],
    ["a folder inside it", ["--out", path.join(defs, "service")], "it is inside the definitions folder"],
    ["a folder inside it (relative)", ["--out", "resources/generated"], "it is inside the definitions folder"],
    ["its parent", ["--out", project], `it holds the definitions folder ${defs}`],
    ["the home folder", ["--out", project], "it is your home folder", { HOME: project }],
  ];
  for (const command of ["generate", "docs"]) {
    for (const [what, args, message, env] of cases) {
      const dirArg = args[1] === "resources/generated" ? [] : [defs];
      const r = env ? cli([command, ...dirArg, ...args, "--force"], env) : spawnCli([command, ...dirArg, ...args, "--force"], defs);
      assertRefused(r, `resourcery ${command}: refusing to write into`, `${command}: ${what}`);
      assert.match(r.stderr, message, `${command}: ${what}`);
      assert.equal(tree(project), before, `${command}: ${what}: nothing written`);
    }
  }
  // The root: a dry run (which writes nothing in any case) says so too.
  for (const command of ["generate", "docs"]) {
    assertRefused(cli([command, defs, "--out", "/", "--dry-run", "--force"]), "refusing to write into /: it is the root of the file system", `${command}: /`);
  }
});

/** Runs the CLI in `cwd` (for relative OUT paths). */
function spawnCli(args: readonly string[], cwd: string): Run {
  const r = spawnSync(process.execPath, [binRun, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

test("a folder holding files resourcery did not write is refused unless --force; an empty one or a fresh git repository is fine", () => {
  for (const command of ["generate", "docs"]) {
    const theirs = path.join(tmp, `theirs-${command}`);
    fs.mkdirSync(theirs);
    fs.writeFileSync(path.join(theirs, "notes.txt"), "mine");
    const r = cli([command, library, "--out", theirs]);
    assertRefused(r, `refusing to write into ${theirs}: it holds files that resourcery did not write (notes.txt)`, command);
    assert.match(r.stderr, "--force");
    assert.equal(tree(theirs), { "notes.txt": "mine" });
    const forced = cli([command, library, "--out", theirs, "--force"]);
    assert.is(forced.code, 0, forced.stderr);
    assert.is(fs.readFileSync(path.join(theirs, "notes.txt"), "utf8"), "mine");
    assert.ok(fs.existsSync(path.join(theirs, ".resourcery/manifest.json")));
    assert.is(cli([command, library, "--out", theirs]).code, 0, "a generation now: no --force needed");
  }
  const repo = path.join(tmp, "repo");
  fs.mkdirSync(path.join(repo, ".git"), { recursive: true });
  fs.writeFileSync(path.join(repo, ".git/HEAD"), "ref: refs/heads/main\n");
  assert.is(cli(["generate", library, "--out", repo]).code, 0);
  assert.is(fs.readFileSync(path.join(repo, ".git/HEAD"), "utf8"), "ref: refs/heads/main\n");
  assert.ok(fs.existsSync(path.join(repo, ".resourcery/manifest.json")), "generated into a fresh git repository");
});

/** Mounts a tmpfs of `size` at `dir`; false (with the reason printed) where this process may not mount. */
function mountTmpfs(dir: string, size: string): boolean {
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { encoding: "utf8" });
  if (r.status !== 0) {
    console.log(`  skipped: cannot mount a tmpfs (${(r.stderr || String(r.error)).trim()}); run as root with CAP_SYS_ADMIN to test ENOSPC and EROFS`);
    return false;
  }
  mounts.push(dir);
  return true;
}

function umount(dir: string): void {
  spawnSync("umount", [dir]);
  mounts.splice(mounts.indexOf(dir), 1);
}

test("a full disk: one line naming OUT and ENOSPC, exit 1, OUT as it was (or not created), nothing of the run left", () => {
  const tiny = path.join(tmp, "tiny");
  if (!mountTmpfs(tiny, "64k")) return;
  try {
    const out = path.join(tiny, "out");
    assertRefused(cli(["generate", library, "--out", out]), `resourcery generate: cannot write ${out}: no space left on the device (ENOSPC`, "a first generation");
    assert.match(cli(["generate", library, "--out", out]).stderr, `nothing was written: ${out} was not created`);
    assert.equal(fs.readdirSync(tiny), [], "no OUT, no staging folder, no lock");
    assertRefused(cli(["docs", library, "--out", out]), `resourcery docs: cannot write ${out}: no space left on the device (ENOSPC`, "docs");
    assert.equal(fs.readdirSync(tiny), []);
  } finally {
    umount(tiny);
  }
  const disk = path.join(tmp, "nearly-full");
  if (!mountTmpfs(disk, "8m")) return;
  try {
    const out = path.join(disk, "out");
    assert.is(cli(["generate", library, "--out", out]).code, 0);
    const before = tree(out);
    const { bavail, bsize } = fs.statfsSync(disk);
    fs.writeFileSync(path.join(disk, "filler"), Buffer.alloc(Math.max(0, bavail * bsize - 16 * 1024))); // room for the lock, not the staging
    const r = cli(["generate", evolved, "--out", out]);
    assertRefused(r, `resourcery generate: cannot write ${out}: no space left on the device (ENOSPC`, "a regeneration");
    assert.match(r.stderr, `nothing was written: ${out} is as it was`);
    assert.equal(tree(out), before, "OUT exactly as it was: no staging folder, no journal, no lock");
    fs.rmSync(path.join(disk, "filler"));
    assert.is(cli(["generate", evolved, "--out", out]).code, 0, "with room again, the regeneration goes through");
    assertOneGeneration(out, "after the disk had room again");
  } finally {
    umount(disk);
  }
});

test("a read-only disk: one line naming OUT and EROFS, exit 1, OUT as it was", () => {
  const disk = path.join(tmp, "read-only");
  if (!mountTmpfs(disk, "8m")) return;
  try {
    const out = path.join(disk, "out");
    assert.is(cli(["generate", library, "--out", out]).code, 0);
    const before = tree(out);
    const remount = spawnSync("mount", ["-o", "remount,ro", disk], { encoding: "utf8" });
    if (remount.status !== 0) return console.log(`  skipped: cannot remount read-only (${remount.stderr.trim()})`);
    for (const command of ["generate", "docs"]) {
      const r = cli([command, evolved, "--out", out, ...(command === "docs" ? ["--force"] : [])]);
      assertRefused(r, `resourcery ${command}: cannot write ${out}: the file system is read-only (EROFS`, command);
      assert.match(r.stderr, `nothing was written: ${out} is as it was`);
      assert.equal(tree(out), before);
    }
    const fresh = path.join(disk, "new");
    assertRefused(cli(["generate", library, "--out", fresh]), `cannot write ${fresh}: the file system is read-only (EROFS`, "a first generation");
    assert.not.ok(fs.existsSync(fresh));
  } finally {
    umount(disk);
  }
});

test("a folder the user may not write: one line naming OUT and EACCES, exit 1, OUT as it was", () => {
  if (process.getuid?.() !== 0) return; // as another user, chmod alone would do; the suite runs as root in CI
  const probe = spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "-e", `require("fs").readFileSync(${JSON.stringify(binRun)})`]);
  if (probe.status !== 0) return console.log("  skipped: cannot run the CLI as an unprivileged user here (setpriv, or the repository is not readable by others)");
  const root = path.join(tmp, "denied");
  const out = path.join(root, "out");
  assert.is(cli(["generate", library, "--out", out]).code, 0);
  fs.chmodSync(tmp, 0o755);
  const before = tree(out);
  const r = spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, binRun, "generate", evolved, "--out", out], { encoding: "utf8" });
  assertRefused({ code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }, `resourcery generate: cannot write ${out}: permission denied (EACCES`, "not writable");
  assert.equal(tree(out), before);
});

test("a generate while another run holds the lock: it waits, then is refused naming the holder, writing nothing; a holder killed with SIGKILL does not block the next run", async () => {
  const out = path.join(tmp, "held");
  assert.is(cli(["generate", library, "--out", out]).code, 0);
  const fresh = path.join(tmp, "held-fresh");
  for (const [target, lockFile] of [[out, path.join(out, ".resourcery/lock")], [fresh, path.join(tmp, ".held-fresh.resourcery-lock")]] as const) {
    const holder = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    children.push(holder);
    await new Promise((r) => holder.once("spawn", r));
    const stat = fs.existsSync(`/proc/${holder.pid}/stat`) ? fs.readFileSync(`/proc/${holder.pid}/stat`, "utf8") : undefined;
    const start = stat?.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    const lock = JSON.stringify({ pid: holder.pid, host: os.hostname(), start, since: new Date().toISOString(), token: "held" });
    fs.writeFileSync(lockFile, lock);
    const before = tree(target);
    const started = Date.now();
    const r = await cliAsync(["generate", evolved, "--out", target]);
    assertRefused(r, `resourcery generate: ${target} is being written by another resourcery run (pid ${holder.pid} on ${os.hostname()}`, "locked");
    assert.match(r.stderr, `remove ${lockFile}`);
    assert.ok(Date.now() - started >= 4_000, "it waited for the holder first");
    assert.equal(tree(target), before, "nothing was written");
    assert.is(fs.readFileSync(lockFile, "utf8"), lock, "the holder's lock is untouched");
    const exited = new Promise((r) => holder.once("exit", r));
    holder.kill("SIGKILL");
    await exited;
    const after = await cliAsync(["generate", evolved, "--out", target]);
    // Taken over, not waited for: a run that waits for a live holder is refused (exit 1, as above), so exit 0
    // is the takeover (a bound on its time would measure the machine's load: the suite runs two files at once).
    assert.is(after.code, 0, after.stderr);
    assert.not.match(after.stderr, "is being written by another resourcery run", "the dead holder's lock was taken over");
    assertOneGeneration(target, "after the holder was killed");
  }
});

test("two generates of different definitions into one OUT at once: one complete generation afterwards, never a mix or a torn file", async () => {
  const sources = (defs: string) => {
    const r = cli(["generate", defs, "--out", path.join(tmp, `sources-${path.basename(defs)}`)]);
    assert.is(r.code, 0);
    return JSON.stringify(assertOneGeneration(path.join(tmp, `sources-${path.basename(defs)}`), "reference").sources);
  };
  const known = new Set([sources(library), sources(directory)]);
  for (let round = 0; round < 4; round++) {
    const out = path.join(tmp, `concurrent-${round}`);
    // Other definitions over an earlier generation break what it served: --allow-breaking (the gate has its own tests).
    if (round % 2 === 1) assert.is(cli(["generate", evolved, "--out", out]).code, 0); // over an earlier generation
    const runs = await Promise.all([cliAsync(["generate", library, "--out", out, "--allow-breaking"]), cliAsync(["generate", directory, "--out", out, "--allow-breaking"])]);
    for (const r of runs) {
      if (r.code !== 0) assertRefused(r, /is being written by another resourcery run/, `round ${round}`);
    }
    assert.ok(runs.some((r) => r.code === 0), `round ${round}: one of them generated`);
    const manifest = assertOneGeneration(out, `round ${round}`);
    assert.ok(known.has(JSON.stringify(manifest.sources)), `round ${round}: the generation of one of the two definitions`);
  }
});

/** Spawns `generate`, waits until its lock file exists, then `ms` more, and kills it with SIGKILL. */
async function killWhileLocked(defs: string, out: string, lockFile: string, ms: number): Promise<boolean> {
  // Other definitions than OUT's break what it served: --allow-breaking (the breaking-change gate has its own tests).
  const child = spawn(process.execPath, [binRun, "generate", defs, "--out", out, "--allow-breaking"], { stdio: "ignore" });
  children.push(child);
  const exited = new Promise<NodeJS.Signals | null>((r) => child.once("exit", (_code, signal) => r(signal)));
  let done = false;
  void exited.then(() => (done = true));
  while (!done && !fs.existsSync(lockFile)) await new Promise((r) => setTimeout(r, 2));
  if (ms > 0) await new Promise((r) => setTimeout(r, ms));
  const locked = fs.existsSync(lockFile);
  child.kill("SIGKILL");
  return (await exited) === "SIGKILL" && locked;
}

test("generate killed with SIGKILL while it holds the lock: OUT is the old or the new generation; the next generate succeeds and cleans up", async () => {
  const oldDefs = many("many-old", "note");
  const newDefs = many("many-new", "remark");
  const reference = path.join(tmp, "killed-reference");
  assert.is(cli(["generate", oldDefs, "--out", reference]).code, 0);
  const oldTree = tree(reference, true);
  const expected = path.join(tmp, "killed-expected");
  fs.cpSync(reference, expected, { recursive: true });
  assert.is(cli(["generate", newDefs, "--out", expected, "--allow-breaking"]).code, 0);
  const newTree = tree(expected, true);
  assert.not.equal(oldTree, newTree);
  let killedLocked = 0;
  const target = path.join(tmp, "killed");
  for (const ms of [0, 10, 25, 45, 70, 100, 150, 200]) {
    fs.rmSync(target, { recursive: true, force: true });
    fs.cpSync(reference, target, { recursive: true });
    if (await killWhileLocked(newDefs, target, path.join(target, ".resourcery/lock"), ms)) killedLocked++;
    if (!fs.existsSync(path.join(target, ".resourcery/journal.json"))) {
      const now = tree(target, true);
      assert.ok(JSON.stringify(now) === JSON.stringify(oldTree) || JSON.stringify(now) === JSON.stringify(newTree), `killed ${ms} ms after locking, before the commit point: the old or the new generation`);
    }
    const next = cli(["generate", newDefs, "--out", target, "--allow-breaking"]);
    assert.is(next.code, 0, `the next generate after a kill at ${ms} ms\n${next.stderr}`);
    assert.equal(tree(target, true), newTree, `after a kill at ${ms} ms and the next generate: the new generation`);
    assertOneGeneration(target, `after a kill at ${ms} ms`);
  }
  assert.ok(killedLocked >= 3, `the lock was held at ${killedLocked} of the kills`);
});

test("a first generation killed with SIGKILL while it holds the lock leaves no OUT or a complete one; the next one succeeds and cleans up", async () => {
  const defs = many("many-first", "note");
  let killedLocked = 0;
  for (const ms of [0, 30, 80, 140, 200]) {
    const target = path.join(tmp, `first-${ms}`);
    if (await killWhileLocked(defs, target, path.join(tmp, `.first-${ms}.resourcery-lock`), ms)) killedLocked++;
    if (fs.existsSync(target)) assertOneGeneration(target, `a first generation killed at ${ms} ms, found complete`, false);
    const next = cli(["generate", defs, "--out", target]);
    assert.is(next.code, 0, `the next generate after a kill at ${ms} ms\n${next.stderr}`);
    assertOneGeneration(target, `after a kill at ${ms} ms and the next generate`);
  }
  assert.ok(killedLocked >= 3, `the lock was held at ${killedLocked} of the kills`);
});

test.run();
