/**
 * Every path the writer touches stays inside its folder: a relative path of plain segments (no
 * `..`, no absolute path, no backslash, control character or Windows device name), reached through
 * real folders only — a symbolic link on the way (or at the end) is refused, never written through.
 * Names are allow-listed by the check already; this is the writer's own guarantee.
 */
import fs from "node:fs";
import path from "node:path";
import { InternalError } from "../diagnostics/internal-error.js";
import { OutError } from "./out-error.js";

const DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$|clock\$)(\..*)?$/i;
// Control characters, a backslash, and what Windows refuses in a name.
const FORBIDDEN = /[\u0000-\u001f\u007f\\:*?"<>|]/;

/** Why `rel` is not a safe relative path to write, or undefined when it is. @example unsafeReason("a/../b") */
export function unsafeReason(rel: string): string | undefined {
  if (rel === "") return "it is empty";
  if (rel.startsWith("/") || path.isAbsolute(rel)) return "it is absolute";
  if (FORBIDDEN.test(rel)) return "it holds a backslash, a colon, a control character or one of * ? \" < > |";
  for (const segment of rel.split("/")) {
    if (segment === "" || segment === "." || segment === "..") return `it has a "${segment}" segment`;
    if (DEVICE.test(segment)) return `"${segment}" is a Windows device name`;
    if (/[. ]$/.test(segment)) return `"${segment}" ends with a dot or a space`;
    if (Buffer.byteLength(segment) > 255) return "a segment is longer than 255 bytes";
  }
  return undefined;
}

/** Throws an InternalError for an emitted path that is unsafe; a bug, since the check allow-lists names. */
export function assertSafePath(rel: string): void {
  const reason = unsafeReason(rel);
  if (reason !== undefined) throw new InternalError(`refusing to write the emitted path ${JSON.stringify(rel)}: ${reason}`);
}

/** Every emitted path is safe, and no two are one file on a case-insensitive file system. */
export function assertSafePaths(paths: Iterable<string>): void {
  const seen = new Map<string, string>();
  for (const rel of paths) {
    assertSafePath(rel);
    const key = rel.normalize("NFC").toLowerCase();
    const other = seen.get(key);
    if (other !== undefined && other !== rel) {
      throw new InternalError(`refusing to write ${JSON.stringify(other)} and ${JSON.stringify(rel)}: they are one file on a case-insensitive file system`);
    }
    seen.set(key, rel);
  }
}

/** The error for a symbolic link met on the way to a file. */
function linkError(at: string): OutError {
  let target = "";
  try {
    target = ` (to ${fs.readlinkSync(at)})`;
  } catch {
    // gone meanwhile: the link is still what was met
  }
  return new OutError(
    `refusing to write through ${at}${target}: it is a symbolic link, and resourcery writes only into real folders; replace it with a folder (or remove it) and run again; nothing was written`,
  );
}

/**
 * The absolute path of `rel` inside `root` (a real path), after checking that it is safe and that no
 * existing component from `root` to the file itself is a symbolic link (each is lstat'ed).
 */
export function confined(root: string, rel: string): string {
  assertSafePath(rel);
  let at = root;
  for (const segment of rel.split("/")) {
    at = path.join(at, segment);
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") break; // nothing further exists
      throw error;
    }
    if (stat.isSymbolicLink()) throw linkError(at);
  }
  const full = path.join(root, rel);
  if (!full.startsWith(root + path.sep)) throw new InternalError(`${full} is not inside ${root}`);
  return full;
}

/**
 * Creates the folder `rel` inside `root` one component at a time, refusing a symbolic link or a file on
 * the way (a recursive mkdir would follow links, and reports a read-only file system as ENOENT).
 */
export function makeDirs(root: string, rel: string): void {
  if (rel === "" || rel === ".") return;
  assertSafePath(rel);
  let at = root;
  for (const segment of rel.split("/")) {
    at = path.join(at, segment);
    let stat: fs.Stats | undefined;
    try {
      stat = fs.lstatSync(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    if (stat === undefined) {
      try {
        fs.mkdirSync(at);
        continue;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        stat = fs.lstatSync(at); // created meanwhile
      }
    }
    if (stat.isSymbolicLink()) throw linkError(at);
    if (!stat.isDirectory()) throw new OutError(`cannot write ${path.join(root, rel)}: ${at} is a file where resourcery needs a folder; move it away and run again`);
  }
}

// O_NOFOLLOW: the kernel itself refuses to open a symbolic link as the file (0 where it is unknown).
const WRITE_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | (fs.constants.O_NOFOLLOW ?? 0);

/** Opens `rel` inside `root` for writing (created or truncated; its folder exists): never through a link. */
export function openForWrite(root: string, rel: string): number {
  return fs.openSync(confined(root, rel), WRITE_FLAGS, 0o666);
}
