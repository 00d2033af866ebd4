/** What an emitter produces: a file of the generated package, and who owns it. */
export interface EmittedFile {
  /** Path relative to the package root, with forward slashes. */
  readonly path: string;
  readonly contents: string;
  /**
   * "generated": resourcery's, replaced on every generate; hand edits are detected.
   * "user": seeded once, then the user's; never overwritten.
   */
  readonly owner: "generated" | "user";
  /**
   * For a user-owned file the package cannot do without: what needs it ("src/generated/handlers.ts imports
   * it"). Deleted by the user, such a file is created again; any other seed the user deleted stays deleted.
   */
  readonly required?: string;
  /** The file's key (emit/keys.ts): recorded in the manifest, so that the next generation may leave it unrendered. */
  readonly key?: string;
  /**
   * Not rendered: the file is as the last generation wrote it (its key and its size and mtime are as that
   * generation recorded them). `contents` is then empty; its hash is the manifest's (write/manifest.ts knownFile).
   */
  readonly known?: true;
  /**
   * The contents UTF-8 encoded, when the file arrived so (a worker's page): hashed and written as they are,
   * and `contents` decoded only when something reads the text (openapi.json at N = 500 is 17 MB: decoding
   * it, then encoding it again to hash and to write it, took ~0.3 s of the main thread).
   */
  readonly bytes?: Uint8Array;
}

/** A file whose contents are at hand UTF-8 encoded: its text is decoded when first read. */
export function encodedFile(path: string, owner: EmittedFile["owner"], bytes: Uint8Array, key?: string): EmittedFile {
  let text: string | undefined;
  return {
    path,
    owner,
    bytes,
    ...(key !== undefined ? { key } : {}),
    get contents() {
      return (text ??= Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"));
    },
  };
}

/** What a file's writer and hash take: its bytes when it has them, else its text. */
export function dataOf(file: { readonly contents: string; readonly bytes?: Uint8Array | undefined }): string | Uint8Array {
  return file.bytes ?? file.contents;
}

/**
 * A file rendered when asked: the docs worker renders its pages one at a time and hands each on
 * as soon as it is rendered, so that writing them overlaps rendering the rest.
 */
export interface LazyFile {
  readonly path: string;
  readonly owner: "generated" | "user";
  render(): string;
  /** The same contents UTF-8 encoded, when the file makes them faster than encoding `render()`'s text (the docs worker posts bytes). */
  bytes?(): Uint8Array;
  /** The file's key (emit/keys.ts), for a file a regeneration may leave unrendered when it did not change. */
  key?(): string;
}

/** A file already written into the staging folder of a first generation (see write/stage.ts). */
export interface StagedFile {
  readonly path: string;
  readonly owner: "generated" | "user";
  /** SHA-256 of the contents, hex, as the manifest records it. */
  readonly hash: string;
  /** Size and mtime (ms) as written, for the stat cache. */
  readonly stat: readonly [size: number, mtimeMs: number];
  readonly key?: string;
}

/** Renders lazy files now. */
export function renderAll(files: readonly LazyFile[]): EmittedFile[] {
  return files.map((f) => ({ path: f.path, owner: f.owner, contents: f.render() }));
}

/** `file` with a key (emit/keys.ts), computed when asked. */
export function keyed(file: LazyFile, key: () => string): LazyFile {
  return { ...file, key };
}

/** Sorts files by path (the order of every emitted list). */
export function byPath<F extends { readonly path: string }>(files: F[]): F[] {
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A file of the package as the plan sees it: in memory, or already staged. */
export type PackageFile = EmittedFile | StagedFile;

/** True for a file already written into the staging folder. */
export function isStaged(file: PackageFile): file is StagedFile {
  return "hash" in file;
}
