/**
 * What stops a generation at the output folder rather than in the definitions: OUT is not a place
 * to write, is locked by another run, holds a symbolic link, or the disk refuses (full, read-only, no
 * permission). Printed as one line naming OUT and the cause, exit 1; never a stack trace.
 */
import fs from "node:fs";
import path from "node:path";

/** A refusal or failure at the output folder, with a message that says what to do. */
export class OutError extends Error {
  override readonly name = "OutError";
}

/** The disk errors a user can fix (space, quota, permissions, a read-only mount), in words. */
const CAUSES: Readonly<Record<string, string>> = {
  ENOSPC: "no space left on the device",
  EDQUOT: "the disk quota is exceeded",
  EROFS: "the file system is read-only",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EIO: "an input/output error of the device",
};

/**
 * The OutError a disk error during a write into `out` stands for (undefined for any other error,
 * which stays a bug). `committed`: whether the generation had passed its commit point (the journal),
 * after which the next run finishes it rather than OUT being as it was.
 */
export function outErrorOf(error: unknown, out: string, committed: boolean): OutError | undefined {
  if (error instanceof OutError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const cause = code === undefined ? undefined : CAUSES[code];
  if (cause === undefined) return undefined;
  const at = (error as NodeJS.ErrnoException).path;
  const where = at && path.resolve(at) !== out ? ` at ${at}` : "";
  const outcome = committed
    ? "the new generation was committed but not completely applied: run generate again once this is fixed, and it is finished"
    : fs.existsSync(out)
      ? `nothing was written: ${out} is as it was`
      : `nothing was written: ${out} was not created`;
  return new OutError(`cannot write ${out}: ${cause} (${code}${where}); ${outcome}`);
}
