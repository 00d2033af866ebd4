/**
 * `npm run demo` (bin/demo.js) stops when its own process is signalled: SIGTERM or SIGINT sent to the
 * demo alone (not to the terminal's process group) reaches the service it started, which shuts down
 * gracefully; the demo then exits 0 and nothing listens any more.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot, runCli } from "../helpers/cli.js";
import { freePort, linkModules } from "../helpers/package.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-demo-"));
const out = path.join(tmp, "directory-service");

/** Whether something answers HTTP at `url`. */
async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url);
    return true;
  } catch {
    return false;
  }
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`${signal} to the demo's process stops the service it started, and the demo exits 0`, async () => {
    if (!fs.existsSync(out)) {
      // Generated and given resourcery's node_modules (every dependency of a generated package) first,
      // so that the demo skips npm install.
      assert.is(runCli(["generate", "examples/directory", "--out", out]).code, 0);
      linkModules(out);
    }
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/v1/accounts`;
    const demo = spawn(process.execPath, [path.join(repoRoot, "bin", "demo.js")], {
      cwd: repoRoot,
      env: { ...process.env, PORT: String(port), DEMO_DIR: out, LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let log = "";
    demo.stdout!.on("data", (d) => (log += d));
    demo.stderr!.on("data", (d) => (log += d));
    const exited = new Promise<number | null>((resolve) => demo.once("exit", (code) => resolve(code)));
    try {
      const deadline = Date.now() + 120_000;
      while (!(await answers(url))) {
        assert.ok(demo.exitCode === null, `the demo exited early:\n${log}`);
        assert.ok(Date.now() < deadline, `the service did not answer at ${url}:\n${log}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      demo.kill(signal);
      const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r("still running"), 20_000))]);
      assert.is(code, 0, log);
      assert.not.ok(await answers(url), "the service still answers after the demo exited");
    } finally {
      if (demo.exitCode === null) demo.kill("SIGKILL");
    }
  });
}

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test.run();
