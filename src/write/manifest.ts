/** OUT/.resourcery/manifest.json: every file resourcery wrote, with its content hash and owner. */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { dataOf, type EmittedFile } from "../emit/emitted-file.js";
import { unsafeReason } from "./confine.js";

export interface ManifestEntry {
  readonly hash: string;
  readonly owner: "generated" | "user";
  /** A user-owned file seeded once and deleted by the user since: not seeded again (`hash` is the seed's). */
  readonly deleted?: true;
  /** A generated file's key (emit/keys.ts): the next generation leaves the file unrendered when it finds the same. */
  readonly key?: string;
}

export interface Manifest {
  readonly version: 1;
  readonly generator: string;
  /** Hash of the generator and every definition file this generation was made from. */
  readonly inputs?: string;
  /** The definition files read, relative to the definitions folder (for the up-to-date check). */
  readonly sources?: readonly string[];
  /** True when the check of those definitions found nothing at all (not even a warning). */
  readonly clean?: boolean;
  readonly files: Readonly<Record<string, ManifestEntry>>;
  /**
   * Each resource's identity (its schema file, relative to the definitions folder) and the names it had:
   * the next generation tells a renamed collection (same file, another x-collection) from a new one by it.
   */
  readonly resources?: Readonly<Record<string, ResourceIdentity>>;
}

/** What a generation named a resource: its collection and its singular name (its type names come from it). */
export interface ResourceIdentity {
  readonly collection: string;
  readonly name: string;
}

/** Folder of resourcery's own bookkeeping inside OUT. */
export const STATE_DIR = ".resourcery";
export const MANIFEST = `${STATE_DIR}/manifest.json`;

/** SHA-256 of file contents, hex. */
export function hashOf(contents: string | Uint8Array): string {
  return createHash("sha256").update(contents).digest("hex");
}

const fileHashes = new WeakMap<object, string>();

/**
 * A generated file left unrendered (its key and its stat as the last generation recorded them: see
 * EmittedFile.known), with the hash the manifest has for it.
 */
export function knownFile(path: string, key: string, hash: string): EmittedFile {
  const file: EmittedFile = { path, owner: "generated", contents: "", key, known: true };
  fileHashes.set(file, hash);
  return file;
}

/**
 * The keys a regeneration of `out` may leave files unrendered by: each generated file's key in `previous`
 * (the caller asks only when the last generation was made by this very generator: emit/memo.ts `matched`), when the file's size and mtime are still those the stat cache recorded.
 */
export function knownKeys(out: string, previous: Manifest | undefined): Map<string, { readonly key: string; readonly hash: string }> {
  const known = new Map<string, { readonly key: string; readonly hash: string }>();
  if (previous === undefined) return known;
  const stats = readStatCache(out);
  for (const [rel, entry] of Object.entries(previous.files)) {
    const cached = stats[rel];
    if (entry.owner !== "generated" || entry.key === undefined || cached === undefined) continue;
    try {
      const stat = fs.statSync(path.join(out, rel));
      if (stat.isFile() && stat.size === cached[0] && stat.mtimeMs === cached[1]) known.set(rel, { key: entry.key, hash: entry.hash });
    } catch {
      // gone: rendered
    }
  }
  return known;
}

/** hashOf an emitted file's contents, hashed once however often the plan and the commit ask. */
export function hashOfFile(file: { readonly contents: string; readonly bytes?: Uint8Array | undefined }): string {
  let hash = fileHashes.get(file);
  if (hash === undefined) fileHashes.set(file, (hash = hashOf(dataOf(file))));
  return hash;
}

/**
 * OUT/.resourcery/stat-cache.json: the size and mtime (ms) of each generated file as written (and, by
 * absolute path, of each definition file the generation read, with its hash: see write/inputs.ts upToDate). When
 * both still match, a file is taken as unchanged without reading it (as git's index does); otherwise
 * its hash decides. A machine-local cache (kept out of version control, never needed for
 * correctness): a missing or stale one only makes the up-to-date check read and hash the files.
 */
export const STAT_CACHE = `${STATE_DIR}/stat-cache.json`;
export type StatCache = Readonly<Record<string, readonly [size: number, mtimeMs: number, hash?: string]>>;

/** The stat cache of `out`, or an empty one. */
export function readStatCache(out: string): StatCache {
  try {
    const value = JSON.parse(fs.readFileSync(path.join(out, STAT_CACHE), "utf8")) as StatCache;
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}

/** What a generation records about itself beside its files. */
export type ManifestInfo = Omit<Manifest, "version" | "files">;

/**
 * The manifest of an earlier generation in `out`, or undefined (first generate, or not ours). One
 * that names a path outside OUT (edited by hand, or made to) is not taken: nothing it lists is
 * deleted or trusted.
 */
export function readManifest(out: string): Manifest | undefined {
  try {
    const value = JSON.parse(fs.readFileSync(path.join(out, MANIFEST), "utf8")) as Manifest;
    const valid = value && value.version === 1 && value.files !== null && typeof value.files === "object";
    return valid && Object.keys(value.files).every((p) => unsafeReason(p) === undefined) ? value : undefined;
  } catch {
    return undefined;
  }
}
