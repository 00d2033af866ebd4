/**
 * The embedded store: one SQLite file (better-sqlite3), one table per collection holding the field values
 * as JSON. The schema is created and migrated at start-up from the spec: a UNIQUE expression index per
 * x-unique property, an index per instance-link field (inverse-collection queries) and one on owner.
 * Every index this module manages is named `rsc_…`; indexes of ours that the spec no longer asks for are
 * dropped, so regenerating the service with a changed x-unique migrates the file on the next start (the
 * tables a database lacks may be created on a worker thread meanwhile: openSqliteStoreInParallel). A
 * collection whose ids are a sequence (x-id "sequence") has an INTEGER key, so its lists order ids as
 * numbers, and its last number in the table rsc_sequences, written in the create's transaction.
 *
 * Property names are the definition's text, so they may hold any character: they reach SQL only as
 * escaped JSON-path labels inside string literals and as escaped index names inside quoted identifiers.
 * A write lock held by another connection is waited for a few milliseconds synchronously (better-sqlite3
 * blocks the event loop while it waits), then asynchronously with backoff, and then given up as StoreBusy.
 *
 * Transactions span awaits (a write's hooks are async), while better-sqlite3 runs on one connection per
 * handle: so the writes of the process take turns (a FIFO lock; a plain write is a transaction of one
 * statement), and a file database gets a second connection for them. Reads outside a transaction use the
 * first one and, in WAL mode, see only committed rows: a transaction's writes stay invisible to other
 * requests until its COMMIT. An in-memory database cannot be shared by two connections, so there one
 * connection does both, and a read of another request made while a transaction waits for its hooks sees
 * the transaction's writes before they are committed (or rolled back); use a file for real work.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import type { ResourceSpec, ServiceSpec } from "./spec.js";
import { fillText, MigrationRefused, requiredToCheck, SCHEMA_TABLE, stateOf, type MigrateOptions, type MigrationStep } from "./migration.js";
import { StoreBusy, UniqueViolation } from "./store.js";
import type { ImmediateReads, ImmediateTransaction, ImmediateWrites, ListQuery, Page, Store, StoredRecord } from "./store.js";

type Db = Database.Database;
type Statement = Database.Statement;

/**
 * A record's row as the statements return it: an array in COLUMNS order. Those statements are raw():
 * better-sqlite3 makes an array per row at about two thirds of the cost of an object with named keys.
 */
type Row = readonly [id: string | number, createdAt: string, modifiedAt: string, owner: string | null, data: string];

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
  return `json_extract(${column}, ${fieldPath(property)})`;
}

/** The JSON path of one top-level property as an SQL literal (see fieldExpr). */
function fieldPath(property: string): string {
  const label = property.replace(/["\\\u0000-\u001f\u007f]|[\ud800-\udfff]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return literal(`$."${label}"`);
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

/**
 * The table of the sequences' counters: per collection whose ids are a sequence (x-id "sequence"), the last
 * number given. A counter rather than the table's largest id, so a deleted instance's number is never given
 * again; `rsc_` cannot be a collection's name (collections are camelCase).
 */
const SEQUENCES = "rsc_sequences";

/** True when the resource's ids are a sequence: its table's id is an INTEGER key (ordered as numbers). */
function isSequence(resource: ResourceSpec): boolean {
  return resource.idForm?.kind === "sequence";
}

/**
 * What the database holds of this module's schema, read once for all collections: every table's columns
 * (keyed by the name folded as SQLite folds it: table names ignore ASCII case) and the indexes we own, by
 * table. Asking sqlite_master per collection would scan it once each: quadratic in the collections.
 */
interface PresentSchema {
  readonly tables: ReadonlyMap<string, ReadonlyMap<string, string>>;
  readonly indexes: ReadonlyMap<string, ReadonlyMap<string, string | null>>;
}

/** A table name as SQLite compares it (ASCII letters fold to lower case, other characters do not). */
function tableKey(name: string): string {
  return name.replace(/[A-Z]+/g, (c) => c.toLowerCase());
}

/** Reads the PresentSchema: two queries, whatever the number of collections. */
function presentSchema(db: Db): PresentSchema {
  const tables = new Map<string, Map<string, string>>();
  const columns = db
    .prepare(`SELECT m.name AS tbl, p.name AS name, p.type AS type FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS p WHERE m.type = 'table'`)
    .raw()
    .all() as [string, string, string][];
  for (const [tbl, name, type] of columns) {
    const key = tableKey(tbl);
    let table = tables.get(key);
    if (table === undefined) tables.set(key, (table = new Map()));
    table.set(name, type);
  }
  const indexes = new Map<string, Map<string, string | null>>();
  const owned = db
    .prepare(`SELECT tbl_name, name, sql FROM sqlite_master WHERE type = 'index' AND substr(name, 1, 4) = ?`)
    .raw()
    .all(OWNED_PREFIX) as [string, string, string | null][];
  for (const [tbl, name, sql] of owned) {
    let table = indexes.get(tbl);
    if (table === undefined) indexes.set(tbl, (table = new Map()));
    table.set(name, sql);
  }
  return { tables, indexes };
}

/** Runs one statement of a migration (or, in a dry run, records it). */
type RunStep = (step: MigrationStep) => void;

/**
 * Creates the collection's table if missing, brings its indexes in line with the spec (`present`: see
 * presentSchema) and its stored instances with the properties it requires (migration.ts; `recorded`: the
 * state last migrated to). With `deferred`, a missing table is not created but its statements are added
 * there (IF NOT EXISTS: another process may create it first), to be run later in one transaction (createInWorker).
 */
function migrateCollection(db: Db, resource: ResourceSpec, present: PresentSchema, recorded: ReadonlyMap<string, string>, run: RunStep, thorough: boolean, deferred?: string[]): void {
  checkLabels(resource);
  const c = resource.collection;
  const table = ident(c);
  const idType = isSequence(resource) ? "INTEGER" : "TEXT";
  const info = present.tables.get(tableKey(c));
  const state = stateOf(resource);
  const record = { sql: `INSERT INTO ${SCHEMA_TABLE} (collection, state) VALUES (${literal(c)}, ${literal(state)}) ON CONFLICT (collection) DO UPDATE SET state = excluded.state`, why: `record what the instances of ${c} hold` };
  if (info === undefined) {
    const create = `CREATE TABLE IF NOT EXISTS ${table} (id ${idType} PRIMARY KEY NOT NULL, created_at TEXT NOT NULL, modified_at TEXT NOT NULL, owner TEXT, data TEXT NOT NULL)`;
    if (deferred !== undefined) {
      // An empty table: none of its indexes can fail. SQLite stores the statement without IF NOT EXISTS,
      // so the next start finds exactly the wanted text.
      deferred.push(create);
      for (const sql of wantedIndexes(resource).values()) deferred.push(sql.replace(/^CREATE (UNIQUE )?INDEX /, "CREATE $1INDEX IF NOT EXISTS "));
      deferred.push(record.sql);
      return;
    }
    run({ sql: create, why: `collection ${c} is new` });
  } else {
    const missing = COLUMNS.filter((col) => !info.has(col));
    if (missing.length > 0) {
      throw new Error(`sqlite store: table ${JSON.stringify(c)} exists but lacks column(s) ${missing.join(", ")}`);
    }
    const had = info.get("id")!.toUpperCase();
    if ((had === "INTEGER") !== (idType === "INTEGER")) {
      // Ids cannot change form in place: every stored link and every href clients keep names the old ids.
      throw new Error(
        `sqlite store: the instances of ${JSON.stringify(c)} in this database have ${had === "INTEGER" ? "integer" : "string"} ids, and the definitions now ask ` +
          `for ${idType === "INTEGER" ? 'integer ids ("x-id": "sequence")' : "string ids"}; keep the x-id the collection was created with, or start on a new database`,
      );
    }
  }

  const wanted = wantedIndexes(resource);
  const keep = new Set<string>();
  for (const [name, sql] of present.indexes.get(c) ?? []) {
    if (wanted.get(name) === sql) keep.add(name);
    else run({ sql: `DROP INDEX ${ident(name)}`, why: `index ${name} is no longer wanted (no data is lost)` });
  }
  for (const [name, sql] of wanted) {
    if (keep.has(name)) continue;
    const property = resource.unique.find((p) => uniqueIndexName(c, p) === name);
    // Looked for before the statement (a dry run cannot try it); no other connection writes meanwhile: the
    // migration holds the database's write lock (IMMEDIATE).
    if (property !== undefined && info !== undefined) refuseDuplicates(db, c, property);
    run({ sql, why: property !== undefined ? `${c}.${property} is unique (x-unique)` : `collection ${c} is queried by this index` });
  }
  if (info !== undefined) {
    for (const property of requiredToCheck(resource, recorded.get(c), thorough)) {
      const where = `WHERE json_type(data, ${fieldPath(property)}) IS NULL`;
      const lacking = (db.prepare(`SELECT count(*) FROM ${table} ${where}`).pluck().get() as number) ?? 0;
      if (lacking === 0) continue;
      const fill = fillText(resource, property, lacking);
      run({
        sql: `UPDATE ${table} SET data = substr(data, 1, length(data) - 1) || CASE WHEN data = '{}' THEN '' ELSE ',' END || ${literal(`${fill}}`)} ${where}`,
        why: `${lacking} instance(s) of ${c} lack the required property ${JSON.stringify(property)}: its default`,
      });
    }
  }
  if (recorded.get(c) !== state) run(record);
}

/** Throws the store's clear message when existing records of `c` repeat a value of `property` (an x-unique index cannot be made). */
function refuseDuplicates(db: Db, c: string, property: string): void {
  const dup = db
    .prepare(`SELECT ${fieldExpr(property)} AS value, count(*) AS n FROM ${ident(c)} WHERE ${fieldExpr(property)} IS NOT NULL GROUP BY 1 HAVING count(*) > 1 LIMIT 1`)
    .get() as { value: unknown; n: number } | undefined;
  if (dup === undefined) return;
  throw new MigrationRefused(
    `sqlite store: cannot make ${c}.${property} unique: existing records of collection "${c}" ` +
      `repeat a value of property "${property}" (e.g. ${JSON.stringify(dup.value)} appears ${dup.n} times); remove the duplicates or drop x-unique`,
  );
}

/**
 * Creates and migrates every collection's table, reading sqlite_master once (see presentSchema), and the
 * sequences' table when a collection needs it; with `deferred`, the missing tables' statements go there.
 * Each statement goes through `run` (a dry run records them).
 */
function migrate(db: Db, spec: ServiceSpec, run: RunStep, options: { thorough?: boolean | undefined; deferred?: string[] | undefined } = {}): void {
  const present = presentSchema(db);
  let recorded = new Map<string, string>();
  if (present.tables.has(SCHEMA_TABLE)) recorded = new Map(db.prepare(`SELECT collection, state FROM ${SCHEMA_TABLE}`).raw().all() as [string, string][]);
  else run({ sql: `CREATE TABLE IF NOT EXISTS ${SCHEMA_TABLE} (collection TEXT PRIMARY KEY NOT NULL, state TEXT NOT NULL)`, why: "the record of what each collection's instances hold" });
  for (const resource of spec.resources) migrateCollection(db, resource, present, recorded, run, options.thorough === true, options.deferred);
  if (spec.resources.some(isSequence) && !present.tables.has(SEQUENCES)) {
    run({ sql: `CREATE TABLE IF NOT EXISTS ${SEQUENCES} (collection TEXT PRIMARY KEY NOT NULL, last INTEGER NOT NULL)`, why: "the counters of the collections whose ids are a sequence" });
  }
}

/**
 * Brings the SQLite database `file` in line with `spec` as the service does at start-up, or with `dryRun`
 * only says how (nothing written; a file that does not exist yet is planned as empty); `thorough` checks
 * every required property (migration.ts). Returns the statements, run or planned. Throws MigrationRefused
 * when the data needs a decision of yours.
 * @example migrateSqlite(spec, "data/library.db", { dryRun: true }).map((s) => s.sql)
 */
export function migrateSqlite(spec: ServiceSpec, file: string, options: MigrateOptions = {}): MigrationStep[] {
  const steps: MigrationStep[] = [];
  if (options.dryRun === true) {
    const db = file !== ":memory:" && fs.existsSync(file) ? new Database(file, { readonly: true, fileMustExist: true }) : new Database(":memory:");
    try {
      migrate(db, spec, (step) => void steps.push(step), { thorough: options.thorough });
    } finally {
      db.close();
    }
    return steps;
  }
  const store = open(spec, file, {}, false, (step) => void steps.push(step), options.thorough === true);
  void store.store.close();
  return steps;
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

/** How a list is narrowed by a field (the statement's shape; the values bind as parameters). */
type WhereShape = { readonly field: string; readonly contains: boolean };

/** The prepared statements of one collection on one connection: fixed ones eagerly, list shapes on first use. */
class Collection {
  readonly insert: Statement;
  readonly get: Statement;
  readonly update: Statement;
  readonly delete: Statement;
  readonly existing: Statement;
  /** existing() of one id, the usual case (a link in a request body): a primary-key probe rather than a json_each join. */
  readonly exists: Statement;
  /** For a sequence: takes the next number (one more than the counter, or than the largest id when there is no counter yet). */
  readonly nextId: Statement | undefined;
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
    this.nextId = isSequence(resource)
      ? db
          .prepare(
            `INSERT INTO ${SEQUENCES} (collection, last) VALUES (?, (SELECT coalesce(max(id), 0) + 1 FROM ${t})) ` +
              `ON CONFLICT (collection) DO UPDATE SET last = last + 1 RETURNING last`,
          )
          .pluck()
      : undefined;
  }

  /** The page and count statements for one shape of query; parameters bind as named values. */
  list(owner: boolean, where: WhereShape | undefined, ids: boolean): { page: Statement; count: Statement } {
    const key = `${owner ? 1 : 0}${ids ? 1 : 0}${where?.contains ? 1 : 0}:${where?.field ?? ""}`;
    let cached = this.lists.get(key);
    if (cached) return cached;
    const conditions: string[] = [];
    if (owner) conditions.push("t.owner = @owner");
    if (where !== undefined) {
      // A stored list is a JSON array in the record: membership is a walk of that array (no index serves it).
      // (json_each walks a lone value too: only an array is a list.)
      const list = fieldPath(where.field);
      conditions.push(
        where.contains
          ? `json_type(t.data, ${list}) = 'array' AND EXISTS (SELECT 1 FROM json_each(t.data, ${list}) AS m WHERE m.value = @value)`
          : `${fieldExpr(where.field, "t.data")} = @value`,
      );
    }
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

/**
 * The statements of the collections on one connection, and those that begin and end its transactions. A
 * collection's statements are prepared on its first use, not at start-up: a service of 850 collections
 * would otherwise prepare some 10 000 statements before its first answer.
 */
class Connection {
  private readonly collections = new Map<string, Collection>();
  /** Prepared once: a transaction costs no SQL compilation. */
  readonly begin: Statement;
  readonly commit: Statement;
  readonly rollback: Statement;

  constructor(
    readonly db: Db,
    private readonly resources: ReadonlyMap<string, ResourceSpec>,
  ) {
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.commit = db.prepare("COMMIT");
    this.rollback = db.prepare("ROLLBACK");
  }

  col(collection: string): Collection {
    return this.collections.get(collection) ?? this.prepare(collection);
  }

  /** The first use of a collection on this connection: its statements. */
  private prepare(collection: string): Collection {
    const resource = this.resources.get(collection);
    if (resource === undefined) throw new Error(`sqlite store: unknown collection ${JSON.stringify(collection)}`);
    const c = new Collection(this.db, resource);
    this.collections.set(collection, c);
    return c;
  }
}

function readOne(c: Collection, id: string): StoredRecord | undefined {
  const row = c.get.get(id) as Row | undefined;
  return row && toRecord(row);
}

function toRecord(row: Row): StoredRecord {
  const record: { -readonly [K in keyof StoredRecord]: StoredRecord[K] } = {
    id: String(row[0]), // a sequence's INTEGER key: the service handles ids as text
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

/** The bound parameters and statements of a list query; undefined when it cannot match anything (no ids). */
function listShape(c: Collection, query: ListQuery): { s: { page: Statement; count: Statement }; params: Record<string, unknown> } | undefined {
  const where = query.where;
  if (where !== undefined && !c.fields.has(where.field)) {
    throw new Error(`sqlite store: ${c.resource.collection} has no field ${JSON.stringify(where.field)} to filter on`);
  }
  const params: Record<string, unknown> = {};
  if (query.owner !== undefined) params.owner = query.owner;
  const contains = where !== undefined && "contains" in where;
  if (where !== undefined) params.value = "contains" in where ? where.contains : where.equals;
  if (query.ids !== undefined) {
    const ids = [...new Set(query.ids)];
    if (ids.length === 0) return undefined;
    params.ids = JSON.stringify(ids);
  }
  const s = c.list(query.owner !== undefined, where && { field: where.field, contains }, query.ids !== undefined);
  return { s, params };
}

/** The rows of a page of a list query whose size is known. */
function pageOf(shape: { s: { page: Statement }; params: Record<string, unknown> }, query: ListQuery, size: number): Page {
  const limit = count(query.limit);
  const offset = count(query.offset);
  const rows = limit === 0 || offset >= size ? [] : (shape.s.page.all({ ...shape.params, limit, offset }) as Row[]);
  return { items: rows.map(toRecord), size };
}

/** SQLite's UNIQUE error on one of our indexes as UniqueViolation; anything else as it is. */
function translate(c: Collection, error: unknown): unknown {
  if (!isUniqueError(error)) return error;
  const index = violatedIndex(error.message);
  const property = c.resource.unique.find((p) => uniqueIndexName(c.resource.collection, p) === index);
  return property === undefined ? error : new UniqueViolation(c.resource.collection, property);
}

/**
 * The process's turn to write on the write connection: one plain write or one transaction at a time, in
 * the order they asked. Free, it is taken at once (no promise); a waiter that is not served by its
 * deadline gives up with StoreBusy (a hook that writes through the service's store instead of its
 * transaction's would otherwise wait for itself for ever).
 */
class WriteLock {
  private held = false;
  private readonly waiting: (() => void)[] = [];

  /** Takes the lock: undefined when it was free, else a promise that settles when this caller's turn comes. */
  take(deadline: number, label: string): Promise<void> | undefined {
    if (!this.held) {
      this.held = true;
      return undefined;
    }
    return new Promise<void>((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(grant);
        if (at !== -1) this.waiting.splice(at, 1);
        reject(new StoreBusy(label, 1));
      }, Math.max(0, deadline - performance.now()));
      this.waiting.push(grant);
    });
  }

  /** Takes the lock when it is free (true); false, and nothing waits, when it is held. */
  tryTake(): boolean {
    if (this.held) return false;
    this.held = true;
    return true;
  }

  /** Hands the lock to the next waiter, or frees it. */
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }
}

class SqliteStore implements Store {
  private closed = false;
  /** SQLite's data_version: it changes when another connection (process, worker thread) commits to the file. */
  private readonly dataVersion: Statement;
  /** Writes through this store's connections, which the read connection's data_version may not see. */
  private writes = 0;
  /** Sizes of (narrowed) collections, valid while data_version and `writes` are what they were when counted. */
  private readonly sizes = new Map<string, number>();
  private sizesAt = { dataVersion: -1, writes: -1 };
  private readonly lock = new WriteLock();
  private readonly reader: Connection;
  /** The connection of writes and transactions: a second one for a file, the reader itself for a database in memory. */
  private readonly writer: Connection;

  constructor(
    db: Db,
    writeDb: Db | undefined,
    spec: ServiceSpec,
    private readonly busyTimeoutMs: number,
  ) {
    const resources = new Map(spec.resources.map((r) => [r.collection, r]));
    this.reader = new Connection(db, resources);
    this.writer = writeDb ? new Connection(writeDb, resources) : this.reader;
    this.dataVersion = db.prepare("PRAGMA data_version").pluck();
  }

  private col(connection: Connection, collection: string): Collection {
    if (this.closed) throw new Error("sqlite store: the store is closed");
    return connection.col(collection);
  }

  /**
   * Runs one statement, again and again while another connection holds the lock it needs: each attempt
   * waits SYNC_BUSY_MS at most (synchronously), the pauses between them are timers, so other requests
   * are served meanwhile. Past the deadline it gives up with StoreBusy; a statement that failed busy
   * changed nothing, so running it again is safe.
   */
  private async retry<T>(label: string, c: Collection | undefined, run: () => T, deadline = performance.now() + this.busyTimeoutMs): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return run();
      } catch (error) {
        if (!isBusyError(error)) throw c ? translate(c, error) : error;
        const pause = Math.min(MAX_RETRY_PAUSE_MS, 2 ** attempt) * (0.5 + Math.random() / 2);
        if (this.closed || performance.now() + pause > deadline) throw new StoreBusy(label, 1);
        await new Promise((resolve) => setTimeout(resolve, pause));
        if (this.closed) throw new StoreBusy(label, 1);
      }
    }
  }

  /** One write statement on the write connection, in the process's turn (see WriteLock). */
  private async write<T>(collection: string, run: (c: Collection) => T): Promise<T> {
    const c = this.col(this.writer, collection);
    const deadline = performance.now() + this.busyTimeoutMs;
    const turn = this.lock.take(deadline, collection);
    if (turn) await turn;
    try {
      this.writes++;
      return await this.retry(collection, c, () => run(c), deadline);
    } finally {
      this.lock.release();
    }
  }

  async insert(collection: string, record: StoredRecord): Promise<void> {
    await this.write(collection, (c) => c.insert.run(record.id, record.createdAt, record.modifiedAt, record.owner ?? null, JSON.stringify(record.data)));
  }

  /** Reads in WAL mode wait for no writer; should one find the file locked all the same, it is StoreBusy at once (no retry: it answers now). */
  readonly immediate: ImmediateReads = {
    get: (collection, id) => {
      const c = this.col(this.reader, collection);
      try {
        return readOne(c, id);
      } catch (error) {
        throw isBusyError(error) ? new StoreBusy(collection, 1) : error;
      }
    },
    list: (collection, query) => {
      const c = this.col(this.reader, collection);
      try {
        return this.listNow(c, query);
      } catch (error) {
        throw isBusyError(error) ? new StoreBusy(collection, 1) : translate(c, error);
      }
    },
  };

  async get(collection: string, id: string): Promise<StoredRecord | undefined> {
    const c = this.col(this.reader, collection);
    return this.retry(collection, c, () => readOne(c, id));
  }

  async existing(collection: string, ids: readonly string[]): Promise<Set<string>> {
    const c = this.col(this.reader, collection);
    return this.retry(collection, c, () => existingNow(c, ids));
  }

  async list(collection: string, query: ListQuery): Promise<Page> {
    const c = this.col(this.reader, collection);
    return this.retry(collection, c, () => this.listNow(c, query));
  }

  private listNow(c: Collection, query: ListQuery): Page {
    const shape = listShape(c, query);
    if (shape === undefined) return { items: [], size: 0 };
    const where = query.where;
    // better-sqlite3 runs synchronously, so nothing can write through this store between the size and the page.
    // A list of ids is counted each time: its count is as cheap as its page, and the ids would make long keys.
    const size =
      query.ids !== undefined
        ? (shape.s.count.get(shape.params) as number)
        : this.size(shape.s.count, JSON.stringify([c.resource.collection, query.owner, where?.field, where && "contains" in where, shape.params.value]), shape.params);
    return pageOf(shape, query, size);
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
    return this.write(collection, (c) => c.update.run(record.modifiedAt, JSON.stringify(record.data), record.id).changes > 0);
  }

  async delete(collection: string, id: string): Promise<boolean> {
    return this.write(collection, (c) => c.delete.run(id).changes > 0);
  }

  async nextId(collection: string): Promise<string> {
    return this.write(collection, nextNow);
  }

  /**
   * BEGIN IMMEDIATE on the write connection in the process's turn (waiting, like a write, for another
   * process's lock), `work` with the transaction's store, then COMMIT; ROLLBACK when anything throws.
   */
  async transaction<T>(work: (tx: Store) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error("sqlite store: the store is closed");
    const w = this.writer;
    const deadline = performance.now() + this.busyTimeoutMs;
    const turn = this.lock.take(deadline, TRANSACTION);
    if (turn) await turn;
    const tx = new SqliteTransaction(w, () => this.closed, () => this.writes++);
    try {
      try {
        w.begin.run();
      } catch (error) {
        if (!isBusyError(error)) throw error;
        await this.retry(TRANSACTION, undefined, () => w.begin.run(), deadline);
      }
      let result: T;
      try {
        result = await work(tx);
        tx.settle();
        w.commit.run();
      } catch (error) {
        if (w.db.open && w.db.inTransaction) w.rollback.run();
        throw error;
      }
      return result;
    } finally {
      tx.end();
      // Sizes counted meanwhile on a single connection saw the transaction's rows, committed or not.
      this.writes++;
      this.lock.release();
    }
  }

  /**
   * A transaction run at once (ImmediateWrites): only when the process's write turn is free and BEGIN
   * IMMEDIATE gets the file's lock within the connection's short synchronous wait; otherwise nothing is
   * run and the caller takes `transaction`, which waits its turn and retries.
   */
  readonly immediateWrites: ImmediateWrites = {
    transactionNow: <T>(work: (tx: ImmediateTransaction) => T): { readonly value: T } | undefined => {
      if (this.closed) throw new Error("sqlite store: the store is closed");
      if (!this.lock.tryTake()) return undefined;
      const w = this.writer;
      const tx = new SqliteTransaction(w, () => this.closed, () => this.writes++);
      try {
        try {
          w.begin.run();
        } catch (error) {
          if (isBusyError(error)) return undefined;
          throw error;
        }
        try {
          const value = work(tx.now);
          w.commit.run();
          return { value };
        } catch (error) {
          if (w.db.open && w.db.inTransaction) w.rollback.run();
          throw error;
        }
      } finally {
        tx.end();
        this.writes++;
        this.lock.release();
      }
    },
  };

  /** The file answers a read (health/ready): a closed store, or a file gone unreadable, throws. */
  async ping(): Promise<void> {
    if (this.closed) throw new Error("sqlite store: the store is closed");
    this.dataVersion.get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.writer !== this.reader) this.writer.db.close();
    this.reader.db.close();
  }
}

/** The label of StoreBusy when a transaction could not start. */
const TRANSACTION = "transaction";

function existingNow(c: Collection, ids: readonly string[]): Set<string> {
  if (ids.length === 0) return new Set();
  const found = (ids.length === 1 ? c.exists.all(ids[0]) : c.existing.all(JSON.stringify(ids))) as (string | number)[];
  return new Set(found.map(String));
}

/** The next number of a sequence's counter (see Collection.nextId). */
function nextNow(c: Collection): string {
  if (c.nextId === undefined) throw new Error(`sqlite store: the ids of ${JSON.stringify(c.resource.collection)} are not a sequence`);
  return String(c.nextId.get(c.resource.collection));
}

/**
 * The store of one transaction: every read and write on the write connection, inside BEGIN … COMMIT (a
 * nested transaction in a SAVEPOINT). It holds the process's write turn, so its statements wait for no
 * one. Sizes are counted afresh: the remembered ones are of committed rows.
 */
class SqliteTransaction implements Store {
  private ended = false;
  private depth = 0;
  /** Nested transactions take turns: a savepoint belongs to the one that opened it. */
  private nested: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly connection: Connection,
    private readonly storeClosed: () => boolean,
    private readonly wrote: () => void,
  ) {}

  /** Throws once the transaction has ended or the store is closed. */
  private check(): void {
    if (this.ended) throw new Error("sqlite store: this transaction has ended; use the store your hook or handler was given now");
    if (this.storeClosed()) throw new Error("sqlite store: the store is closed");
  }

  private col(collection: string): Collection {
    this.check();
    return this.connection.col(collection);
  }

  /** One statement; a busy database here means another connection broke the lock's rules: StoreBusy, never a 500. */
  private run<T>(collection: string, f: (c: Collection) => T): T {
    const c = this.col(collection);
    try {
      return f(c);
    } catch (error) {
      throw isBusyError(error) ? new StoreBusy(collection, 1) : translate(c, error);
    }
  }

  /** The transaction's statements run at once: the store of a synchronous transaction (ImmediateWrites), and what the async methods call. */
  readonly now: ImmediateTransaction = {
    get: (collection, id) => this.run(collection, (c) => readOne(c, id)),
    existing: (collection, ids) => this.run(collection, (c) => existingNow(c, ids)),
    insert: (collection, record) => {
      this.wrote();
      this.run(collection, (c) => c.insert.run(record.id, record.createdAt, record.modifiedAt, record.owner ?? null, JSON.stringify(record.data)));
    },
    nextId: (collection) => {
      this.wrote();
      return this.run(collection, nextNow);
    },
  };

  readonly immediate: ImmediateReads = this.now;

  async insert(collection: string, record: StoredRecord): Promise<void> {
    this.now.insert(collection, record);
  }

  async get(collection: string, id: string): Promise<StoredRecord | undefined> {
    return this.now.get(collection, id);
  }

  async existing(collection: string, ids: readonly string[]): Promise<Set<string>> {
    return this.now.existing(collection, ids);
  }

  async list(collection: string, query: ListQuery): Promise<Page> {
    return this.run(collection, (c) => {
      const shape = listShape(c, query);
      return shape === undefined ? { items: [], size: 0 } : pageOf(shape, query, shape.s.count.get(shape.params) as number);
    });
  }

  async update(collection: string, record: StoredRecord): Promise<boolean> {
    this.wrote();
    return this.run(collection, (c) => c.update.run(record.modifiedAt, JSON.stringify(record.data), record.id).changes > 0);
  }

  async delete(collection: string, id: string): Promise<boolean> {
    this.wrote();
    return this.run(collection, (c) => c.delete.run(id).changes > 0);
  }

  async nextId(collection: string): Promise<string> {
    return this.now.nextId(collection);
  }

  /** A nested transaction: a SAVEPOINT, released when `work` resolves and rolled back to when it throws. */
  transaction<T>(work: (tx: Store) => Promise<T>): Promise<T> {
    const turn = this.nested.then(async () => {
      this.check();
      const name = `rsc_${++this.depth}`;
      const db = this.connection.db;
      db.exec(`SAVEPOINT ${name}`);
      try {
        const result = await work(this);
        db.exec(`RELEASE ${name}`);
        return result;
      } catch (error) {
        if (db.open && db.inTransaction) db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
        throw error;
      } finally {
        this.depth--;
      }
    });
    this.nested = turn.catch(() => undefined);
    return turn;
  }

  /** Called before COMMIT: a nested transaction still running would be committed half done. */
  settle(): void {
    if (this.depth > 0) throw new Error("sqlite store: a transaction ended while a nested one was still running; await every nested transaction");
  }

  /** From now on every call is refused. */
  end(): void {
    this.ended = true;
  }

  async close(): Promise<void> {
    throw new Error("sqlite store: a transaction's store is not closed; close the service's store");
  }
}
/**
 * Opens (creating and migrating as needed) the SQLite store of a service; `file` may be ":memory:" (one
 * connection: see the module's note on transactions in memory).
 * @example openSqliteStore(spec, "data/library.db", { busyTimeoutMs: 2000 })
 */
export function openSqliteStore(spec: ServiceSpec, file: string, options: SqliteStoreOptions = {}): Store & { readonly immediate: ImmediateReads; readonly immediateWrites: ImmediateWrites } {
  return open(spec, file, options, false).store;
}

/** A store opened by openSqliteStoreInParallel, and when it may be used. */
export interface ParallelStore {
  readonly store: Store & { readonly immediate: ImmediateReads; readonly immediateWrites: ImmediateWrites };
  /** Resolves once the tables the database lacked are created (at once when it lacked none); rejects, saying why, when they could not be. */
  readonly created: Promise<void>;
}

/**
 * Opens the store as openSqliteStore does, but the tables the database lacks (every table of a new
 * database) are created on a worker thread, while the caller goes on (buildService registers the routes
 * meanwhile): SQLite reads its whole schema again after each CREATE, so a new database of 850 collections
 * takes most of a second to create. Changes to existing tables (indexes to drop or add, which may fail
 * on the data) are made before this returns, as openSqliteStore makes them. Use the store once `created`
 * has resolved. A database in memory is created at once (no other thread can open it).
 * @example const { store, created } = openSqliteStoreInParallel(spec, "data/library.db"); await created;
 */
export function openSqliteStoreInParallel(spec: ServiceSpec, file: string, options: SqliteStoreOptions = {}): ParallelStore {
  return open(spec, file, options, true);
}

/** openSqliteStore, and with `parallel` openSqliteStoreInParallel. */
function open(spec: ServiceSpec, file: string, options: SqliteStoreOptions, parallel: boolean, ran?: RunStep, thorough = false): ParallelStore {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isFinite(busyTimeoutMs) || busyTimeoutMs < 0) throw new Error(`sqlite store: busyTimeoutMs must be a number of milliseconds >= 0, not ${busyTimeoutMs}`);
  if (file !== ":memory:" && !file.startsWith("file:")) fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file);
  let writeDb: Db | undefined;
  try {
    // Start-up may wait the whole budget synchronously: no request is being served yet.
    db.pragma(`busy_timeout = ${Math.max(SYNC_BUSY_MS, Math.round(busyTimeoutMs))}`);
    // A database in memory answers "memory": it has no WAL, and no second connection can share it.
    const wal = db.pragma("journal_mode = WAL", { simple: true }) === "wal";
    db.pragma("synchronous = NORMAL");
    const seen = new Set<string>();
    for (const resource of spec.resources) {
      if (seen.has(resource.collection)) throw new Error(`sqlite store: collection ${resource.collection} appears twice`);
      seen.add(resource.collection);
    }
    const deferred = parallel && wal && !file.startsWith("file:") ? [] : undefined;
    // IMMEDIATE: two processes starting at once migrate one after the other, never interleaved.
    db.transaction(() =>
      migrate(
        db,
        spec,
        (step) => {
          db.exec(step.sql);
          ran?.(step);
        },
        { deferred, thorough },
      ),
    ).immediate();
    db.pragma(`busy_timeout = ${SYNC_BUSY_MS}`);
    if (wal) {
      writeDb = new Database(file);
      writeDb.pragma(`busy_timeout = ${SYNC_BUSY_MS}`);
      writeDb.pragma("synchronous = NORMAL");
    }
    const store = new SqliteStore(db, writeDb, spec, busyTimeoutMs);
    return { store, created: deferred === undefined || deferred.length === 0 ? Promise.resolve() : createInWorker(file, deferred, busyTimeoutMs) };
  } catch (error) {
    writeDb?.close();
    db.close();
    throw error;
  }
}

/**
 * The code of the worker that runs createInWorker's statements: fixed text, given the statements (made
 * by wantedIndexes and migrateCollection, names escaped there) and the driver's path as data.
 */
const CREATE_TABLES_WORKER = `
const { workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file);
try {
  db.pragma("busy_timeout = " + workerData.busyTimeoutMs);
  db.transaction(() => { for (const sql of workerData.statements) db.exec(sql); }).immediate();
} catch (error) {
  // A SqliteError reaches the other thread without its message: a plain Error keeps it.
  throw new Error(String(error && error.message || error));
} finally {
  db.close();
}
`;

/** Runs `statements` (creating tables and their indexes) in one IMMEDIATE transaction on a connection of a worker thread. */
function createInWorker(file: string, statements: readonly string[], busyTimeoutMs: number): Promise<void> {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  return new Promise((resolve, reject) => {
    const fail = (why: string) => reject(new Error(`sqlite store: cannot create the tables the database ${file} lacks: ${why}`));
    // execArgv []: the worker needs none of the process's flags (a loader such as tsx would only slow it).
    const worker = new Worker(CREATE_TABLES_WORKER, { eval: true, execArgv: [], workerData: { driver, file: path.resolve(file), statements, busyTimeoutMs: Math.max(SYNC_BUSY_MS, Math.round(busyTimeoutMs)) } });
    worker.once("error", (error) => fail(error instanceof Error ? error.message : String(error)));
    worker.once("exit", (code) => (code === 0 ? resolve() : fail(`the worker stopped with exit code ${code}`)));
  });
}
