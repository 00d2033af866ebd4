/**
 * The up-to-date check reads the definition files OUT's manifest lists; the manifest is as untrusted
 * as the definitions (a generated package is often committed), so those reads are bounded like the
 * check's: inside the definitions folder, regular files only, never a FIFO or a device.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot } from "../../helpers/cli.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rsc-inputs-"));
const dir = path.join(tmp, "defs");
fs.cpSync(path.join(repoRoot, "examples", "library"), dir, { recursive: true });
spawnSync("mkfifo", [path.join(dir, "pipe.json")]);

/** inputsHash of `sources`, in a child process with a deadline (a FIFO would block the test itself). */
function hashIn(sources: string[]): { result: string | null; blocked: boolean } {
  const script = `
    import { inputsHash } from ${JSON.stringify(path.join(repoRoot, "src/write/inputs.ts"))};
    console.log(JSON.stringify(inputsHash(${JSON.stringify(dir)}, ${JSON.stringify(sources)}, "service") ?? null));`;
  const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: repoRoot, encoding: "utf8", timeout: 20_000 });
  return { result: child.signal ? null : (JSON.parse(child.stdout) as string | null), blocked: child.signal !== null };
}

test("the sources of a real generation hash; a FIFO, a device or a path out of the folder in them is no hash, at once", () => {
  const sources = ["resources/author.json", "resources/book.json", "resources/common.json", "service.json"];
  assert.type(hashIn(sources).result, "string");
  for (const bad of ["pipe.json", "../../../../../../dev/zero", "/etc/hostname"]) {
    const { result, blocked } = hashIn([...sources, bad]);
    assert.not.ok(blocked, `${bad}: the up-to-date check blocked`);
    assert.is(result, null, bad);
  }
});

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test.run();
