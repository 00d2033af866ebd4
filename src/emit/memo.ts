/**
 * Incremental generation's memory: the results of pure computations over parts of the model (a resource's
 * sample bodies, the schemas ajv compiled clean, a resource's entries in the docs' search index), kept between
 * generations in OUT/.resourcery/memo.json and keyed by the digest of exactly what each is computed from
 * (emit/keys.ts). The docs worker reads the memo too and hands what it kept and made to the main thread
 * (`entries`, `take`), whose memo is the one saved. A regeneration that finds a key
 * takes the result instead of computing it; what it computes it records. Like the stat cache it is never
 * needed for correctness: a missing, stale or corrupt memo only makes a generation compute everything, and
 * `--force` neither reads it nor trusts it (it renders everything, as the test of incremental generation
 * compares against). Entries of another generator are not read.
 */
import fs from "node:fs";
import path from "node:path";
import { keyOf } from "./keys.js";

/** The memo's file inside OUT. */
export const MEMO_FILE = ".resourcery/memo.json";

interface MemoFile {
  readonly generator: string;
  readonly entries: Readonly<Record<string, unknown>>;
}

/** Not a file of the package: the path under which the docs worker posts its memo's entries (MemoEntries, JSON), last. */
export const MEMO_ENTRIES = "#memo";

/** What a memo kept and made, as a worker hands it to the main thread (JSON). */
export interface MemoEntries {
  readonly kept: readonly string[];
  readonly made: readonly (readonly [string, unknown])[];
}

/** What one generation found and computed. */
export class Memo {
  private foundEntries: ReadonlyMap<string, unknown> | undefined;
  /** Every entry this generation used or made: the next memo (entries no longer asked for are dropped). */
  private readonly used = new Map<string, unknown>();
  private made = 0;

  /**
   * @param earlier What an earlier generation remembered, or how to read it when first asked (see `read`).
   * @param matched True when the memo was read from a generation of this very generator (its code and
   * templates): only then are the keys that generation recorded in the manifest taken (emit/keys.ts).
   */
  constructor(
    private readonly earlier: ReadonlyMap<string, unknown> | (() => ReadonlyMap<string, unknown>) = new Map(),
    readonly matched = false,
  ) {}

  private get found(): ReadonlyMap<string, unknown> {
    return (this.foundEntries ??= typeof this.earlier === "function" ? this.earlier() : this.earlier);
  }

  /** Reads what the earlier generation remembered now, if it is not read yet (the docs worker, while it waits for its model). */
  load(): this {
    void this.found;
    return this;
  }

  /** `compute()`'s result for what `parts` digest, from the memo when an earlier generation computed it. */
  get<T>(kind: string, parts: readonly unknown[], compute: () => T): T {
    const key = keyOf(kind, ...parts);
    if (this.used.has(key)) return this.used.get(key) as T;
    if (this.found.has(key)) {
      const value = this.found.get(key) as T;
      this.used.set(key, value);
      return value;
    }
    const value = compute();
    this.used.set(key, value);
    this.made++;
    return value;
  }

  /** The remembered result for `kind`/`parts`, if any, without computing or recording anything. */
  find<T>(kind: string, parts: readonly unknown[]): T | undefined {
    return this.findKey<T>(keyOf(kind, ...parts));
  }

  /** The remembered result under `key` (keyOf(kind, ...parts)), if any, without recording anything. */
  findKey<T>(key: string): T | undefined {
    return (this.used.has(key) ? this.used.get(key) : this.found.get(key)) as T | undefined;
  }

  /** True when `key` (keyOf(kind, ...parts)) is remembered (found or made by this generation). */
  has(key: string): boolean {
    return this.used.has(key) || this.found.has(key);
  }

  /** Records `value` under `key` (keyOf(kind, ...parts)). */
  set(key: string, value: unknown): void {
    if (!this.used.has(key)) this.made++;
    this.used.set(key, value);
  }

  /** Keeps a found entry (`key`: keyOf(kind, ...parts)) for the next generation without reading it. */
  keep(key: string): void {
    if (!this.used.has(key) && this.found.has(key)) this.used.set(key, this.found.get(key));
  }

  /** What this generation kept of the memo it found and what it made: a worker's, for the main thread's memo to take (`take`) and save. */
  entries(): MemoEntries {
    const kept: string[] = [];
    const made: [string, unknown][] = [];
    for (const [key, value] of this.used) {
      if (this.found.has(key) && this.found.get(key) === value) kept.push(key);
      else made.push([key, value]);
    }
    return { kept, made };
  }

  /** Takes what another thread's memo kept and made (its `entries()`), so that this one saves them too. */
  take(entries: MemoEntries): void {
    for (const key of entries.kept) this.keep(key);
    for (const [key, value] of entries.made) this.set(key, value);
  }

  /**
   * Writes the memo of this generation into `out` (not durably: it is only a cache), unless it is the one
   * found. A disk error leaves the old one, or none.
   */
  save(out: string, generator: string): void {
    if (this.matched && this.made === 0 && this.used.size === this.found.size) return;
    const file = path.join(out, MEMO_FILE);
    // By key: the docs worker's entries arrive while this thread adds its own, so the order of use is not the
    // same from one generation to the next, and the file is (the same generation writes the same bytes).
    const entries = [...this.used].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const text = JSON.stringify({ generator, entries: Object.fromEntries(entries) } satisfies MemoFile);
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(`${file}.tmp`, text);
      fs.renameSync(`${file}.tmp`, file);
    } catch (error) {
      if (!(error as NodeJS.ErrnoException).code) throw error;
      fs.rmSync(`${file}.tmp`, { force: true });
    }
  }

  /**
   * The memo `out` holds from a generation of `generator`, or an empty one. Only the head of the file is read now
   * (the generator that wrote it, which decides `matched`); its entries when first asked for: the definitions are
   * read and the model built before anything asks (3.4 MB at N = 500, ~70 ms that delayed the model).
   */
  static read(out: string, generator: string): Memo {
    const file = path.join(out, MEMO_FILE);
    const head = generatorOf(file);
    if (head === undefined) return Memo.readWhole(file, generator);
    if (head !== generator) return new Memo();
    return new Memo(() => Memo.readWhole(file, generator).found, true);
  }

  private static readWhole(file: string, generator: string): Memo {
    try {
      const value = JSON.parse(fs.readFileSync(file, "utf8")) as MemoFile;
      if (value?.generator !== generator || value.entries === null || typeof value.entries !== "object") return new Memo();
      return new Memo(new Map(Object.entries(value.entries)), true);
    } catch {
      return new Memo();
    }
  }
}

/** The generator a memo file names in its first member (as `save` writes it), from its first bytes; undefined when they say otherwise or it cannot be read. */
function generatorOf(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, "r");
    const head = Buffer.alloc(1024);
    const text = head.toString("utf8", 0, fs.readSync(fd, head, 0, head.length, 0));
    const match = /^\{"generator":("(?:[^"\\]|\\.)*"),"entries":/.exec(text);
    return match ? (JSON.parse(match[1]!) as string) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * The key under which a generation remembers the hash of an OpenAPI document it wrote (`docs/openapi.json`,
 * `docs/openapi.v<N>.json`, by its path in the package; undefined for any other file): the next generation
 * takes parts of that document as printed (emit/docs/openapi.ts) only when the bytes it reads have this hash,
 * i.e. are the ones this memo's entries were made with.
 */
export function printedDocumentKey(file: string): string | undefined {
  return /^docs\/openapi(\.v\d+)?\.json$/.test(file) ? keyOf("printed document", file) : undefined;
}

/** The memo emitters and rules consult: an empty one (nothing found, nothing kept) unless generate sets one. */
let current = new Memo();

/** Makes `memo` the one emitters and rules consult (generate, for one generation). */
export function useMemo(memo: Memo): void {
  current = memo;
}

/** The memo of the generation under way. */
export function memo(): Memo {
  return current;
}
