/** Drives a generated package as its user would: install, build, test, start, stop. */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { repoRoot } from "./cli.js";

export interface Run {
  readonly code: number;
  readonly output: string;
}

/** Runs a command in `cwd`, capturing stdout and stderr together. */
export function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 300_000): Run {
  const r = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, ...env }, timeout: timeoutMs });
  return { code: r.status ?? -1, output: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

/** Shares resourcery's own node_modules (which holds every dependency of a generated package) with `dir`. */
export function linkModules(dir: string): void {
  const target = path.join(dir, "node_modules");
  if (!fs.existsSync(target)) fs.symlinkSync(path.join(repoRoot, "node_modules"), target, "dir");
}

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** A started package (`node dist/src/main.js`); `stop` sends SIGTERM and waits for the exit. */
export interface Started {
  readonly child: ChildProcess;
  readonly log: () => string;
  stop(): Promise<number | null>;
}

/** Starts the built package in `dir` (`node [nodeArgs] dist/src/main.js`) and waits until `url` answers. */
export async function start(dir: string, env: NodeJS.ProcessEnv, url: string, nodeArgs: readonly string[] = []): Promise<Started> {
  const child = spawn(process.execPath, [...nodeArgs, "dist/src/main.js"], { cwd: dir, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout!.on("data", (d) => (log += d));
  child.stderr!.on("data", (d) => (log += d));
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}:\n${log}`);
    try {
      await fetch(url);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`the service did not answer at ${url}:\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    child,
    log: () => log,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once("exit", (code) => resolve(code));
        child.kill("SIGTERM");
      }),
  };
}

/** A snapshot of every file under `dir` (path → contents and mtime), skipping node_modules. */
export function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name === "node_modules") continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(path.relative(dir, p), `${fs.statSync(p).mtimeMs}:${fs.readFileSync(p, "utf8")}`);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}
