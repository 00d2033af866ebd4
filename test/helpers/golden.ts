/**
 * Golden files: a whole emitted tree compared with test/golden/<name>/, failing on missing, changed or
 * stale files. `UPDATE=1 npm test` re-records; review the diff like code.
 */
import fs from "node:fs";
import path from "node:path";
import * as assert from "uvu/assert";
import { repoRoot } from "./cli.js";

const update = process.env.UPDATE === "1";

function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(path.relative(dir, p).split(path.sep).join("/"));
    }
  };
  walk(dir);
  return out.sort();
}

/** Compares `files` (path → contents) with test/golden/<name>/. */
export function expectGolden(name: string, files: ReadonlyMap<string, string>): void {
  const dir = path.join(repoRoot, "test", "golden", name);
  if (update) {
    fs.rmSync(dir, { recursive: true, force: true });
    for (const [file, contents] of files) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), contents);
    }
    return;
  }
  const recorded = listFiles(dir);
  for (const file of recorded) {
    assert.ok(files.has(file), `golden ${name}/${file} was not emitted. Run with UPDATE=1 to remove it.`);
  }
  for (const [file, contents] of files) {
    const golden = path.join(dir, file);
    assert.ok(fs.existsSync(golden), `golden ${name}/${file} is missing. Run with UPDATE=1 to record it.`);
    assert.fixture(contents, fs.readFileSync(golden, "utf8"), `${name}/${file} differs from its golden file`);
  }
}
