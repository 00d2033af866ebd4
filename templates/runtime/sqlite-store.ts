/**
 * The embedded store: one SQLite file (better-sqlite3), one table per collection holding the field values
 * as JSON. The schema is created and migrated at start-up from the spec: a UNIQUE expression index per
 * x-unique property, an index per instance-link field (inverse-collection queries) and one on owner.
 * Every index this module manages is named `rsc_…`; indexes of ours that the spec no longer asks for are
 * dropped, so regenerating the service with a changed x-unique migrates the file on the next start.
 *
 * Property names are the definition's text, so they may hold any character: they reach SQL only as
 * escaped JSON-path labels inside string literals and as escaped index names inside quoted identifiers.
 * A write lock held by another connection is waited for a few milliseconds synchronously (better-sqlite3
 * blocks the event loop while it waits), then asynchronously with backoff, and then given up as StoreBusy.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { ResourceSpec, ServiceSpec } from "./spec.js";
import { StoreBusy, UniqueViolation } from "./store.js";
import type { ImmediateReads, ListQuery, Page, Store, StoredRecord } from "./store.js";

type Db = Database.Database;
type Statement = Database.Statement;

/**
 * A record's row as the statements return it: an array in COLUMNS order. Those statements are raw():
 * better-sqlite3 makes an array per row at about two thirds of the cost of an object with named keys.
 */
type Row = readonly [id: string, createdAt: string, modifiedAt: string, owner: string | null, data: string];

/** Options of openSqliteStore. */
export interface SqliteStoreOptions {
  /**
   * How long a write waits in all for another connection's lock before it fails with StoreBusy (the
   * service answers 503): retried asynchronously, so the event loop keeps serving. Default 5000.
   */
  readonly busyTimeoutMs?: number | undefined;
}

/** The default of SqliteStoreOptions.busyTimeoutMs. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/** How long one attempt waits for a lock synchronously (SQLite's busy_timeout): the event loop stands still meanwhile. */
const SYNC_BUSY_MS = 5;
/** Longest pause between two attempts of a write that found the database locked. */
const MAX_RETRY_PAUSE_MS = 100;

/** Most collection sizes remembered at once (one per collection and narrowing: owner, field value). */
const SIZE_CACHE_LIMIT = 1000;

/** Prefixes of the indexes this module creates and therefore owns (and may drop). */
const UNIQUE_PREFIX = "rsc_unique:";
const LINK_PREFIX = "rsc_link:";
const OWNED_PREFIX = "rsc_";

/** A double-quoted SQL identifier (the name may not hold U+0000, which ends SQL text: see indexLabel). */
function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * A property name as it appears in an index name: printable ASCII as is (so the indexes of ordinary
 * names keep their names across versions), anything else, and "%", as %uXXXX. No U+0000, no lone
 * surrogate (which SQLite would store as U+FFFD) can reach the schema.
 * @example indexLabel("isbn") === "isbn"; indexLabel("a\u0000b") === "a%u0000b"
 */
function indexLabel(property: string): string {
  return property.replace(/[^\x20-\x24\x26-\x7e]/g, (c) => `%u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A single-quoted SQL string literal. */
function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * The expression that reads one top-level property of the stored JSON; the same text in indexes and
 * queries. The label is quoted, with `"`, `\`, control characters and lone surrogates as JSON \uXXXX
 * escapes, which SQLite (3.45 and later) decodes when it compares labels; other names read as before.
 * @example fieldExpr('a"b') === `json_extract(data, '$."a\\u0022b"')`
 */
function fieldExpr(property: string, column = "data"): string {
  const label = property.replace(/["\\\u0000-\u001f\u007f]|[\ud800-\udfff]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return `json_extract(${column}, ${literal(`$."${label}"`)})`;
}

/**
 * SQLite compares JSON labels up to their first U+0000, so "a" and "a\u0000b" would read one another's
 * value: such a pair of names in one resource is refused at start-up rather than indexed wrongly.
 */
function checkLabels(resource: ResourceSpec): void {
  const seen = new Map<string, string>();
  for (const { name } of resource.fields) {
    const head = name.split("\u0000")[0]!;
    const other = seen.get(head);
    if (other !== undefined && other !== name) {
      throw new Error(`sqlite store: properties ${JSON.stringify(other)} and ${JSON.stringify(name)} of ${resource.collection} differ only after a U+0000 character; rename one`);
    }
    seen.set(head, name);
  }
}

/** The name of the unique index of one x-unique property. */
function uniqueIndexName(collection: string, property: string): string {
  return `${UNIQUE_PREFIX}${collection}:${indexLabel(property)}`;
}

/** What the schema of one collection should be: index name → CREATE INDEX statement. */
function wantedIndexes(resource: ResourceSpec): Map<string, string> {
  const c = resource.collection;
  const table = ident(c);
  const wanted = new Map<string, string>();
  for (const property of new Set(resource.unique)) {
    wanted.set(uniqueIndexName(c, property), `CREATE UNIQUE INDEX ${ident(uniqueIndexName(c, property))} ON ${table} (${fieldExpr(property)})`);
  }
  for (const field of resource.fields) {
    if (field.link?.kind !== "instance") continue;
    const name = `${LINK_PREFIX}${c}:${indexLabel(field.name)}`;
    // Leading with the link value it serves `where`; created_at, id make the ordered page an index walk.
    wanted.set(name, `CREATE INDEX ${ident(name)} ON ${table} (${fieldExpr(field.name)}, created_at, id)`);
  }
  const owner = `${OWNED_PREFIX}owner:${c}`;
  wanted.set(owner, `CREATE INDEX ${ident(owner)} ON ${table} (owner, created_at, id)`);
  const order = `${OWNED_PREFIX}order:${c}`;
  wanted.set(order, `CREATE INDEX ${ident(order)} ON ${table} (created_at, id)`);
  return wanted;
}

const COLUMNS = ["id", "created_at", "modified_at", "owner", "data"] as const;

/** Creates the collection's table if missing and brings its indexes in line with the spec. */
function migrateCollection(db: Db, resource: ResourceSpec): void {
  checkLabels(resource);
  const c = resource.collection;
  const table = ident(c);
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${table} (id TEXT PRIMARY KEY NOT NULL, created_at TEXT NOT NULL, ` +
      `modified_at TEXT NOT NULL, owner TEXT, data TEXT NOT NULL)`,
  );
  const columns = new Set(
    (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(c) as { name: string }[]).map((r) => r.name),
  );
  const missing = COLUMNS.filter((col) => !columns.has(col));
  if (missing.length > 0) {
    throw new Error(`sqlite store: table ${JSON.stringify(c)} exists but lacks column(s) ${missing.join(", ")}`);
  }

  const wanted = wantedIndexes(resource);
  const present = db
    .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND substr(name, 1, 4) = ?`)
    .all(c, OWNED_PREFIX) as { name: string; sql: string | null }[];
  const keep = new Set<string>();
  for (const index of present) {
    if (wanted.get(index.name) === index.sql) keep.add(index.name);
    else db.exec(`DROP INDEX ${ident(index.name)}`);
  }
  for (const [name, sql] of wanted) {
    if (keep.has(name)) continue;
    try {
      db.exec(sql);
    } catch (error) {
      const property = resource.unique.find((p) => uniqueIndexName(c, p) === name);
      if (property !== undefined && isUniqueError(error)) {
        const dup = db
          .prepare(
            `SELECT ${fieldExpr(property)} AS value, count(*) AS n FROM ${table} WHERE ${fieldExpr(property)} IS NOT NULL ` +
              `GROUP BY 1 HAVING count(*) > 1 LIMIT 1`,
          )
          .get() as { value: unknown; n: number } | undefined;
        const example = dup ? ` (e.g. ${JSON.stringify(dup.value)} appears ${dup.n} times)` : "";
        throw new Error(
          `sqlite store: cannot make ${c}.${property} unique: existing records of collection "${c}" ` +
            `repeat a value of property "${property}"${example}; remove the duplicates or drop x-unique`,
        );
      }
      throw error;
    }
  }
}

function isUniqueError(error: unknown): error is Error & { code: string } {
  return error instanceof Error && (error as { code?: unknown }).code === "SQLITE_CONSTRAINT_UNIQUE";
}

/** SQLITE_BUSY (and its extended codes): another connection holds the lock this statement needs. */
function isBusyError(error: unknown): boolean {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" && (code === "SQLITE_BUSY" || code.startsWith("SQLITE_BUSY_"));
}

/** Reads the index name out of "UNIQUE constraint failed: index 'name'" (SQLite doubles quotes in it). */
function violatedIndex(message: string): string | undefined {
  const m = /index '((?:[^']|'')*)'/.exec(message);
  return m?.[1]?.replace(/''/g, "'");
}

/** The prepared statements of one collection: fixed ones eagerly, list shapes on first use. */
class Collection {
  readonly insert: Statement;
  readonly get: Statement;
  readonly update: Statement;
  readonly delete: Statement;
  readonly existing: Statement;
  /** existing() of one id, the usual case (a link in a request body): a primary-key probe rather than a json_each join. */
  readonly exists: Statement;
  readonly fields: ReadonlySet<string>;
  private readonly lists = new Map<string, { page: Statement; count: Statement }>();
  private readonly table: string;

  constructor(
    private readonly db: Db,
    readonly resource: ResourceSpec,
  ) {
    const t = (this.table = ident(resource.collection));
    this.fields = new Set(resource.fields.map((f) => f.name));
    this.insert = db.prepare(`INSERT INTO ${t} (id, created_at, modified_at, owner, data) VALUES (?, ?, ?, ?, ?)`);
    this.get = db.prepare(`SELECT id, created_at, modified_at, owner, data FROM ${t} WHERE id = ?`).raw();
    this.update = db.prepare(`UPDATE ${t} SET modified_at = ?, data = ? WHERE id = ?`);
    this.delete = db.prepare(`DELETE FROM ${t} WHERE id = ?`);
    this.existing = db.prepare(`SELECT id FROM ${t} WHERE id IN (SELECT value FROM json_each(?))`).pluck();
    this.exists = db.prepare(`SELECT id FROM ${t} WHERE id = ?`).pluck();
  }

  /** The page and count statements for one shape of query; parameters bind as named values. */
  list(owner: boolean, where: string | undefined, ids: boolean): { page: Statement; count: Statement } {
    const key = `${owner ? 1 : 0}${ids ? 1 : 0}:${where ?? ""}`;
    let cached = this.lists.get(key);
    if (cached) return cached;
    const conditions: string[] = [];
    if (owner) conditions.push("t.owner = @owner");
    if (where !== undefined) conditions.push(`${fieldExpr(where, "t.data")} = @equals`);
    const filter = conditions.length > 0 ? ` WHERE ${conditions.join(" AND ")}` : "";
    const cols = "t.id, t.created_at, t.modified_at, t.owner, t.data";
    const from = ids
      ? `(SELECT key AS pos, value AS id FROM json_each(@ids)) AS q JOIN ${this.table} AS t ON t.id = q.id`
      : `${this.table} AS t`;
    const order = ids ? "q.pos" : "t.created_at, t.id";
    cached = {
      page: this.db.prepare(`SELECT ${cols} FROM ${from}${filter} ORDER BY ${order} LIMIT @limit OFFSET @offset`).raw(),
      count: this.db.prepare(`SELECT count(*) FROM ${from}${filter}`).pluck(),
    };
    this.lists.set(key, cached);
    return cached;
  }
}

function readOne(c: Collection, id: string): StoredRecord | undefined {
  const row = c.get.get(id) as Row | undefined;
  return row && toRecord(row);
}

function toRecord(row: Row): StoredRecord {
  const record: { -readonly [K in keyof StoredRecord]: StoredRecord[K] } = {
    id: row[0],
    createdAt: row[1],
    modifiedAt: row[2],
    data: JSON.parse(row[4]) as Record<string, unknown>,
  };
  if (row[3] !== null) record.owner = row[3];
  return record;
}

/** A non-negative integer for LIMIT/OFFSET (SQLite reads a negative LIMIT as "no limit"). */
function count(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

class SqliteStore implements Store {
  private readonly collections = new Map<string, Collection>();
  private closed = false;
  /** SQLite's data_version: it changes when another connection (process, worker thread) commits to the file. */
  private readonly dataVersion: Statement;
  /** Writes through this connection, which data_version does not see. */
  private writes = 0;
  /** Sizes of (narrowed) collections, valid while data_version and `writes` are what they were when counted. */
  private readonly sizes = new Map<string, number>();
  private sizesAt = { dataVersion: -1, writes: -1 };

  constructor(
    private readonly db: Db,
    spec: ServiceSpec,
    private readonly busyTimeoutMs: number,
  ) {
    for (const resource of spec.resources) this.collections.set(resource.collection, new Collection(db, resource));
    this.dataVersion = db.prepare("PRAGMA data_version").pluck();
  }

  private col(collection: string): Collection {
    if (this.closed) throw new Error("sqlite store: the store is closed");
    const c = this.collections.get(collection);
    if (!c) throw new Error(`sqlite store: unknown collection ${JSON.stringify(collection)}`);
    return c;
  }

  /** Turns SQLite's UNIQUE error on one of our indexes into UniqueViolation; anything else passes through. */
  private translate(c: Collection, error: unknown): unknown {
    if (!isUniqueError(error)) return error;
    const index = violatedIndex(error.message);
    const property = c.resource.unique.find((p) => uniqueIndexName(c.resource.collection, p) === index);
    return property === undefined ? error : new UniqueViolation(c.resource.collection, property);
  }

  /**
   * Runs one statement, again and again while another connection holds the lock it needs: each attempt
   * waits SYNC_BUSY_MS at most (synchronously), the pauses between them are timers, so other requests
   * are served meanwhile. Past busyTimeoutMs it gives up with StoreBusy; a statement that failed busy
   * changed nothing, so running it again is safe.
   */
  private async retry<T>(c: Collection, run: () => T): Promise<T> {
    const deadline = performance.now() + this.busyTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return run();
      } catch (error) {
        if (!isBusyError(error)) throw this.translate(c, error);
        const pause = Math.min(MAX_RETRY_PAUSE_MS, 2 ** attempt) * (0.5 + Math.random() / 2);
        if (this.closed || performance.now() + pause > deadline) throw new StoreBusy(c.resource.collection, 1);
        await new Promise((resolve) => setTimeout(resolve, pause));
        if (this.closed) throw new StoreBusy(c.resource.collection, 1);
      }
    }
  }

  async insert(collection: string, record: StoredRecord): Promise<void> {
    const c = this.col(collection);
    this.writes++;
    await this.retry(c, () => c.insert.run(record.id, record.createdAt, record.modifiedAt, record.owner ?? null, JSON.stringify(record.data)));
  }

  /** Reads in WAL mode wait for no writer; should one find the file locked all the same, it is StoreBusy at once (no retry: it answers now). */
  readonly immediate: ImmediateReads = {
    get: (collection, id) => {
      const c = this.col(collection);
      try {
        return readOne(c, id);
      } catch (error) {
        throw isBusyError(error) ? new StoreBusy(collection, 1) : error;
      }
    },
  };

  async get(collection: string, id: string): Promise<StoredRecord | undefined> {
    const c = this.col(collection);
    return this.retry(c, () => readOne(c, id));
  }

  async existing(collection: string, ids: readonly string[]): Promise<Set<string>> {
    const c = this.col(collection);
    if (ids.length === 0) return new Set();
    if (ids.length === 1) return this.retry(c, () => new Set(c.exists.all(ids[0]) as string[]));
    return this.retry(c, () => new Set(c.existing.all(JSON.stringify(ids)) as string[]));
  }

  async list(collection: string, query: ListQuery): Promise<Page> {
    const c = this.col(collection);
    return this.retry(c, () => this.listNow(c, query));
  }

  private listNow(c: Collection, query: ListQuery): Page {
    const collection = c.resource.collection;
    const where = query.where;
    if (where !== undefined && !c.fields.has(where.field)) {
      throw new Error(`sqlite store: ${collection} has no field ${JSON.stringify(where.field)} to filter on`);
    }
    const hasOwner = query.owner !== undefined;
    const hasIds = query.ids !== undefined;
    const params: Record<string, unknown> = {};
    if (hasOwner) params.owner = query.owner;
    if (where !== undefined) params.equals = where.equals;
    if (hasIds) {
      const ids = [...new Set(query.ids)];
      if (ids.length === 0) return { items: [], size: 0 };
      params.ids = JSON.stringify(ids);
    }
    const s = c.list(hasOwner, where?.field, hasIds);
    // better-sqlite3 runs synchronously, so nothing can write through this store between the size and the page.
    // A list of ids is counted each time: its count is as cheap as its page, and the ids would make long keys.
    const size = hasIds ? (s.count.get(params) as number) : this.size(s.count, JSON.stringify([collection, query.owner, where?.field, where?.equals]), params);
    const limit = count(query.limit);
    const offset = count(query.offset);
    const rows = limit === 0 || offset >= size ? [] : (s.page.all({ ...params, limit, offset }) as Row[]);
    return { items: rows.map(toRecord), size };
  }

  /**
   * The size of a (narrowed) collection, from a count made since the last write. count(*) walks a whole
   * index, so its cost grows with the collection (unlike the page's): pages of an unchanged collection
   * share one count. Any write forgets them all, whether through this store (`writes`) or through another
   * connection (data_version), so the size is always the one a fresh count would give.
   */
  private size(countStatement: Statement, key: string, params: Record<string, unknown>): number {
    const dataVersion = this.dataVersion.get() as number;
    if (dataVersion !== this.sizesAt.dataVersion || this.writes !== this.sizesAt.writes) {
      this.sizes.clear();
      this.sizesAt = { dataVersion, writes: this.writes };
    }
    let size = this.sizes.get(key);
    if (size === undefined) {
      size = countStatement.get(params) as number;
      if (this.sizes.size >= SIZE_CACHE_LIMIT) this.sizes.clear(); // bounded: many owners cannot grow it
      this.sizes.set(key, size);
    }
    return size;
  }

  async update(collection: string, record: StoredRecord): Promise<boolean> {
    const c = this.col(collection);
    this.writes++;
    return this.retry(c, () => c.update.run(record.modifiedAt, JSON.stringify(record.data), record.id).changes > 0);
  }

  async delete(collection: string, id: string): Promise<boolean> {
    const c = this.col(collection);
    this.writes++;
    return this.retry(c, () => c.delete.run(id).changes > 0);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }
}

/**
 * Opens (creating and migrating as needed) the SQLite store of a service; `file` may be ":memory:".
 * @example openSqliteStore(spec, "data/library.db", { busyTimeoutMs: 2000 })
 */
export function openSqliteStore(spec: ServiceSpec, file: string, options: SqliteStoreOptions = {}): Store & { readonly immediate: ImmediateReads } {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isFinite(busyTimeoutMs) || busyTimeoutMs < 0) throw new Error(`sqlite store: busyTimeoutMs must be a number of milliseconds >= 0, not ${busyTimeoutMs}`);
  if (file !== ":memory:" && !file.startsWith("file:")) fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file);
  try {
    // Start-up may wait the whole budget synchronously: no request is being served yet.
    db.pragma(`busy_timeout = ${Math.max(SYNC_BUSY_MS, Math.round(busyTimeoutMs))}`);
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    const seen = new Set<string>();
    for (const resource of spec.resources) {
      if (seen.has(resource.collection)) throw new Error(`sqlite store: collection ${resource.collection} appears twice`);
      seen.add(resource.collection);
    }
    // IMMEDIATE: two processes starting at once migrate one after the other, never interleaved.
    db.transaction(() => {
      for (const resource of spec.resources) migrateCollection(db, resource);
    }).immediate();
    db.pragma(`busy_timeout = ${SYNC_BUSY_MS}`);
    return new SqliteStore(db, spec, busyTimeoutMs);
  } catch (error) {
    db.close();
    throw error;
  }
}
