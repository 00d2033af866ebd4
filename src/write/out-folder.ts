/**
 * Where a generation may go. OUT is taken as a real path, and refused when writing there could
 * harm something else: the definitions folder, a folder inside or around it, the root of the file
 * system, the home folder, or a folder holding files that resourcery did not write (unless --force).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { MANIFEST, STATE_DIR } from "./manifest.js";
import { OutError } from "./out-error.js";

/** Entries a folder may hold and still count as empty: a fresh git repository, resourcery's own folder. */
const IGNORED_ENTRIES = new Set([".git", STATE_DIR]);

/**
 * `out` as a real path: its own when it exists, else its nearest existing ancestor's followed by the
 * rest. A symbolic link named as OUT is followed (the user chose it); none below OUT ever is.
 */
export function realOut(out: string): string {
  const rest: string[] = [];
  let head = path.resolve(out);
  for (;;) {
    try {
      return path.join(fs.realpathSync(head), ...rest);
    } catch (error) {
      const parent = path.dirname(head);
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || parent === head) throw error;
      rest.unshift(path.basename(head));
      head = parent;
    }
  }
}

/** True when `out` holds a generation (its manifest, or the journal of one being committed). */
export function isGeneration(out: string): boolean {
  return fs.existsSync(path.join(out, MANIFEST)) || fs.existsSync(path.join(out, STATE_DIR, "journal.json"));
}

/** `child` is `parent` or inside it. */
function within(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * Why resourcery may not write into `out` (a real path, from realOut) for the definitions in `dir`,
 * or undefined when it may. `force` allows only a folder that holds files resourcery did not write.
 */
export function outFolderProblem(dir: string, out: string, force: boolean): string | undefined {
  const defs = fs.realpathSync(dir);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.lstatSync(out);
  } catch {
    // absent: created by the generation
  }
  if (stat?.isSymbolicLink()) return "it is a symbolic link to a folder that does not exist; remove the link or name another folder";
  if (stat && !stat.isDirectory()) return "it is a file, not a folder; name a folder for the package";
  if (path.dirname(out) === out) return "it is the root of the file system; name a folder of its own for the package, e.g. --out ./my-service";
  const home = os.homedir();
  if (home && fs.existsSync(home) && fs.realpathSync(home) === out) return "it is your home folder; name a folder of its own for the package, e.g. --out ~/my-service";
  if (out === defs) return "it is the definitions folder; name a folder beside it, e.g. --out ../my-service";
  if (within(out, defs)) return `it is inside the definitions folder ${defs}, where generated files could be read as definitions; name a folder outside it, e.g. beside it`;
  if (within(defs, out)) return `it holds the definitions folder ${defs}, which a generation could overwrite; name a folder outside it, e.g. beside it`;
  if (!stat || force || isGeneration(out)) return undefined;
  const foreign = fs.readdirSync(out).filter((e) => !IGNORED_ENTRIES.has(e));
  if (foreign.length === 0) return undefined;
  return (
    `it holds files that resourcery did not write (${foreign.slice(0, 3).join(", ")}${foreign.length > 3 ? ", …" : ""}) and no ${MANIFEST}; ` +
    "name a new or empty folder, or pass --force to generate into it anyway (files of the same names are then overwritten)"
  );
}

/** Throws an OutError when resourcery may not write into `out` (see outFolderProblem). */
export function checkOutFolder(dir: string, out: string, force: boolean): void {
  const problem = outFolderProblem(dir, out, force);
  if (problem !== undefined) throw new OutError(`refusing to write into ${out}: ${problem}; nothing was written`);
}
