/**
 * The staging folder of a first generation (no OUT yet): the sibling folder commitPlan renames to
 * OUT. Files are written into it as soon as they are emitted — the docs page by page as the docs
 * worker renders them, the rest while the main thread waits for the docs — so that writing overlaps
 * rendering instead of following it. A failed generation discards it; one killed before its rename
 * leaves it behind, and the next first generation removes it before it starts.
 */
import fs from "node:fs";
import path from "node:path";
import type { StagedFile } from "../emit/emitted-file.js";
import { assertSafePath, makeDirs, openForWrite } from "./confine.js";
import { hashOf } from "./manifest.js";

/** The sibling folder a first generation is built in before it is renamed to `out`. */
export function freshTemp(out: string): string {
  return path.join(path.dirname(out), `.${path.basename(out)}.resourcery-tmp`);
}

export class FreshStage {
  readonly root: string;
  private readonly dirs = new Set<string>();

  /** Starts an empty staging folder for `out` (removing one a killed run left). */
  constructor(out: string) {
    this.root = freshTemp(out);
    fs.rmSync(this.root, { recursive: true, force: true });
    const parent = path.dirname(this.root); // made by the lock of OUT (write/lock.ts) when it is missing
    if (!fs.existsSync(parent)) fs.mkdirSync(parent, { recursive: true });
    fs.mkdirSync(this.root);
    this.dirs.add(".");
  }

  /** Writes one file (not fsynced: the manifest, written last, is) and returns what the manifest records of it. */
  write(relative: string, owner: StagedFile["owner"], contents: string | Uint8Array, key?: string): StagedFile {
    assertSafePath(relative); // before anything of it is written
    const dir = path.posix.dirname(relative);
    if (!this.dirs.has(dir)) {
      makeDirs(this.root, dir);
      this.dirs.add(dir);
    }
    const fd = openForWrite(this.root, relative);
    let stat: fs.Stats;
    try {
      fs.writeFileSync(fd, contents);
      stat = fs.fstatSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    return { path: relative, owner, hash: hashOf(contents), stat: [stat.size, stat.mtimeMs], ...(key !== undefined ? { key } : {}) };
  }

  /** Removes the staging folder (nothing happens once commitPlan has renamed it to OUT). */
  discard(): void {
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}
