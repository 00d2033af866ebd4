/**
 * Reads definition files as untrusted input: only inside the project's folders (symbolic links
 * resolved), only regular files (a FIFO would block, /dev/zero never ends), within the size limits.
 */
import fs from "node:fs";
import path from "node:path";
import type { Diagnostic, Target } from "../diagnostics/diagnostic.js";
import { report } from "../diagnostics/report.js";
import { bytesInWords, type Limits } from "./limits.js";

/** Why a file was not read. */
export type ReadProblem =
  | { readonly kind: "missing" }
  | { readonly kind: "outside"; readonly target: string; readonly link: boolean }
  | { readonly kind: "not-a-file"; readonly what: string }
  | { readonly kind: "too-large"; readonly size: number; readonly limit: number }
  | { readonly kind: "over-total"; readonly limit: number }
  | { readonly kind: "unreadable"; readonly reason: string };

/** True when `file` is `root` or below it (both absolute and normalized). */
export function isInside(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** The folders a project's files may be in: the project folder and the allowed ones, as written and resolved. */
export class ProjectRoots {
  private readonly written: readonly string[];
  private readonly real: readonly string[];

  constructor(dir: string, allow: readonly string[] = []) {
    this.written = [dir, ...allow].map((d) => path.resolve(d));
    this.real = this.written.map((d) => {
      try {
        return fs.realpathSync(d);
      } catch {
        return d;
      }
    });
  }

  /** True when the absolute path `file`, as written, is inside a root (the disk is not asked). */
  mayHold(file: string): boolean {
    return [...this.written, ...this.real].some((r) => isInside(r, file));
  }

  /**
   * The real path of `file`, or why it may not be read. A path outside every root as written is
   * refused before the disk is asked anything; then its real path (symbolic links resolved) must
   * be inside a root too.
   */
  locate(file: string): { readonly real: string } | ReadProblem {
    const abs = path.resolve(file);
    if (!this.mayHold(abs)) return { kind: "outside", target: abs, link: false };
    let real: string;
    try {
      // The C library's realpath: one call, where Node's own asks lstat of every folder on the way (a
      // regeneration locates each definition file several times: found, read, hashed; at 500 files 3 000
      // calls took ~90 ms, ~40 ms this way).
      real = fs.realpathSync.native(abs);
    } catch (e) {
      return problemOf(e);
    }
    if (!this.real.some((r) => isInside(r, real))) return { kind: "outside", target: real, link: true };
    return { real };
  }
}

/** While set (recordReads), the bytes of every file a FileReader reads, by the path it was asked for. */
let recorded: Map<string, Buffer> | undefined;

/**
 * Keeps the bytes of every definition file read from now on (until `recordReads(false)`), by the path asked
 * for: generate hashes what its check read into the manifest's inputs, rather than reading every file again.
 */
export function recordReads(on = true): ReadonlyMap<string, Buffer> | undefined {
  recorded = on ? new Map() : undefined;
  return recorded;
}

/** Reads the bytes of definition files, checking each against the roots and the limits. */
export class FileReader {
  /** Bytes read so far, for the limit on all files together. */
  private total = 0;

  constructor(
    readonly roots: ProjectRoots,
    private readonly limits: Pick<Limits, "fileBytes" | "totalBytes">,
  ) {}

  /** The contents of `file`, or why it was not read. Never blocks on a FIFO or device, never reads past the limits. */
  read(file: string): { readonly bytes: Buffer } | ReadProblem {
    const where = this.roots.locate(file);
    if ("kind" in where) return where;
    try {
      // stat before open: opening a device or FIFO can block or have effects of its own.
      const before = fs.statSync(where.real);
      const refused = this.refusal(before);
      if (refused) return refused;
      // O_NONBLOCK and fstat: a FIFO swapped in after the stat neither blocks the open nor gets read.
      const fd = fs.openSync(where.real, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
      try {
        const stat = fs.fstatSync(fd);
        const late = this.refusal(stat);
        if (late) return late;
        // Another file than the one stat saw (a link swapped in between) is not read either.
        if (stat.ino !== before.ino || stat.dev !== before.dev) return { kind: "unreadable", reason: "it changed while it was read" };
        const bytes = Buffer.alloc(stat.size + 1);
        let n = 0;
        for (let got = -1; got !== 0 && n < bytes.length; n += got) got = fs.readSync(fd, bytes, n, bytes.length - n, null);
        if (n > stat.size) return { kind: "unreadable", reason: "it grew while it was read" };
        this.total += n;
        const read = bytes.subarray(0, n);
        recorded?.set(file, read);
        return { bytes: read };
      } finally {
        fs.closeSync(fd);
      }
    } catch (e) {
      return problemOf(e);
    }
  }

  private refusal(stat: fs.Stats): ReadProblem | undefined {
    if (!stat.isFile()) return { kind: "not-a-file", what: fileType(stat) };
    if (stat.size > this.limits.fileBytes) return { kind: "too-large", size: stat.size, limit: this.limits.fileBytes };
    if (this.total + stat.size > this.limits.totalBytes) return { kind: "over-total", limit: this.limits.totalBytes };
    return undefined;
  }
}

/** What a file that is not a regular one is, in words. */
export function fileType(stat: fs.Stats): string {
  if (stat.isDirectory()) return "a folder";
  if (stat.isFIFO()) return "a named pipe (FIFO)";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  if (stat.isSocket()) return "a socket";
  return "not a regular file";
}

function problemOf(e: unknown): ReadProblem {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
  return { kind: "unreadable", reason: code ?? String(e) };
}

/**
 * The diagnostic for a file that was not read, at the place that names it (`what` "name"): a $ref,
 * a resources entry, service.json. Undefined for a missing file, which each caller words its own way.
 */
export function readProblemDiagnostic(problem: ReadProblem, at: Target, what: string, name: string): Diagnostic | undefined {
  switch (problem.kind) {
    case "missing":
      return undefined;
    case "outside":
      // The real path is shown only when a symbolic link hides it; otherwise the name says where.
      return report("ref-outside-project", at, { what, name, link: problem.link ? ` (through a symbolic link, to ${problem.target})` : "" });
    case "not-a-file":
      return report("unreadable-file", at, {
        what,
        name,
        problem: `${problem.what}, not a regular file`,
        fix: "name a JSON file (definition files are regular files inside the project folder)",
      });
    case "too-large":
      return report("unreadable-file", at, {
        what,
        name,
        problem: `a file of ${bytesInWords(problem.size)}, over the ${bytesInWords(problem.limit)} a definition file may hold`,
        fix: 'split it into smaller files that refer to each other with "$ref"',
      });
    case "over-total":
      return report("unreadable-file", at, {
        what,
        name,
        problem: `a file that would take the definition files read past ${bytesInWords(problem.limit)} in all`,
        fix: "keep only the definitions the service needs in the project",
      });
    case "unreadable":
      return report("unreadable-file", at, {
        what,
        name,
        problem: `a file that cannot be read (${problem.reason})`,
        fix: "make it a readable file for the user who runs resourcery",
      });
  }
}
