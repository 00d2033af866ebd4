/**
 * Keys of emitted files (incremental generation): a file's key is the digest of everything its contents are
 * made of — the view its template renders, the page it sits at, what the pages of its set share. Two
 * generations that give a file the same key give it the same bytes, so a regeneration that finds a file's
 * key as the last generation recorded it (and the file on disk as that generation wrote it) knows the file
 * unchanged without rendering it. The generator is not part of a key: keys of another generator are not used
 * (generate compares the manifest's generator first).
 */
import { createHash } from "node:crypto";

/** The digests of objects already keyed, by identity: the model and the views built from it are not changed once built. */
const digests = new WeakMap<object, string>();

/** The key of `parts` (JSON values): SHA-256 of their JSON, base64url. An object part is digested once however many keys name it (a resource's view keys both its HTML and its Markdown page). */
export function keyOf(...parts: readonly unknown[]): string {
  const hash = createHash("sha256");
  for (const part of parts) {
    if (typeof part === "string") hash.update(`${part.length}:${part}`);
    else if (part !== null && typeof part === "object") {
      let digest = digests.get(part);
      if (digest === undefined) digests.set(part, (digest = createHash("sha256").update(JSON.stringify(part)).digest("base64url")));
      hash.update(`#${digest}`);
    } else hash.update(JSON.stringify(part) ?? "undefined");
    hash.update("\0");
  }
  return hash.digest("base64url");
}

/**
 * What a regeneration may leave unrendered: each generated file's key and hash as the last generation recorded
 * them, by path, for files on disk as it wrote them (write/manifest.ts knownKeys).
 */
export type KnownKeys = ReadonlyMap<string, { readonly key: string; readonly hash: string }>;

/**
 * A part of a view computed when it is first read (`value`), keyed by what it is computed from: its JSON —
 * what keyOf digests — is the key `inputs` gives, so that a page holding it is keyed without computing it, and
 * a page whose key the last generation recorded never computes it at all.
 * @example new Deferred(() => operationDocs(r), () => keyOf("operation docs", r)).value
 */
export class Deferred<T> {
  private computed: { readonly value: T } | undefined;
  private key: string | undefined;

  constructor(
    private readonly compute: () => T,
    private readonly inputs: () => string,
  ) {}

  get value(): T {
    return (this.computed ??= { value: this.compute() }).value;
  }

  /** The same part seen through `f` (computed when read), from the same inputs. */
  map<U>(f: (value: T) => U): Deferred<U> {
    return new Deferred(() => f(this.value), () => this.toJSON());
  }

  toJSON(): string {
    return (this.key ??= this.inputs());
  }
}
