/**
 * The PostgreSQL store (`DATABASE_URL=postgres://…`, CONTRACT §9): many server processes share one database.
 * One table per collection, as the SQLite store has: `id` (text; bigint for a collection whose ids are a
 * sequence, so its pages order them as numbers), `created_at` and `modified_at` (ISO text, ordered as
 * text), `owner`, and the field values as one `json` document: kept as written, as SQLite keeps its text (a
 * `jsonb` column would reorder the keys of every object and drop repeated ones, so that representations would
 * differ between the two stores). Indexes and queries read it as `jsonb` (`data::jsonb`, an immutable cast).
 * Each x-unique property is a unique expression index on its JSON value (JSON null and absence repeat freely,
 * as on SQLite), so a duplicate is refused by the database whichever process sends it (SQLSTATE 23505 →
 * UniqueViolation → 409 naming the property). Each instance-link field has a column of its own, generated from
 * the document (the target's id), with a foreign key to the target's id checked at the commit (a link to
 * nothing is refused by the database itself: LinkViolation → 409) and an index that serves the inverse-collection
 * queries and the foreign key's checks.
 *
 * The schema is created and brought in line with the spec at start-up under an advisory lock, so that N
 * processes starting at once take turns and the last ones find nothing left to do; so are the stored instances
 * (migration.ts: a property made required gets its default), and `migratePg` plans or runs the same for
 * `npm run migrate`. Indexes this module owns
 * are named `rsc_…` (by a digest: PostgreSQL cuts names at 63 bytes); those the spec no longer asks for are
 * dropped. Property names are the definition's text: they reach SQL only as bound parameters or as escaped
 * string literals (jsonb keys) inside index expressions, never as identifiers.
 *
 * Statements are named (prepared once per pooled connection: pg does it on first use). A transaction holds one
 * connection of the pool from BEGIN to COMMIT; a nested one is a savepoint. Links stay whole across processes
 * by row locks: in a transaction an instance read (`get`, the read before an update or a delete) is locked
 * `FOR UPDATE` and the targets of links checked (`existing`) `FOR SHARE`, so that a delete and a write linking to
 * the same instance take turns, and the later one sees the earlier one's commit (the link refused, or the delete
 * refused while linked). The database out of reach (refused,
 * restarting, a connection cut) is StoreBusy: the service answers 503 with Retry-After and the error body, and
 * the pool connects again by itself once the database is back.
 */
import { createHash } from "node:crypto";
import pg from "pg";
import type { ResourceSpec, ServiceSpec } from "./spec.js";
import { fillText, MigrationRefused, requiredToCheck, SCHEMA_TABLE, stateOf, type MigrateOptions, type MigrationStep } from "./migration.js";
import { LinkViolation, StoreBusy, UniqueViolation, UnstorableValue } from "./store.js";
import type { ListQuery, Page, SharedCounters, Store, StoredRecord } from "./store.js";

/** Options of openPgStore. */
export interface PgStoreOptions {
  /** Most connections the process opens (default 10: with N processes, N × this must stay below the server's max_connections). */
  readonly poolSize?: number | undefined;
  /** How long a request waits for a free connection, or for the database to answer a connect, before StoreBusy (ms; default 5000). */
  readonly connectTimeoutMs?: number | undefined;
}

/** The default of PgStoreOptions.poolSize. */
export const DEFAULT_POOL_SIZE = 10;

/** The advisory lock the schema is migrated under (one number for every resourcery service: they migrate one at a time). */
const MIGRATION_LOCK = 0x72736373; // "rscs"

/** The table of the sequences' counters (see the SQLite store's): `rsc_` cannot be a collection's name. */
const SEQUENCES = "rsc_sequences";
const OWNED_PREFIX = "rsc_";

/** A double-quoted SQL identifier. */
function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A single-quoted SQL string literal (standard_conforming_strings is on: a backslash is itself). */
function literal(text: string): string {
  if (text.includes("\u0000")) throw new Error(`pg store: a property name holds U+0000, which PostgreSQL text cannot hold: ${JSON.stringify(text)}`);
  return `'${text.replace(/'/g, "''")}'`;
}

/** The JSON value of one top-level property, as index expressions and queries write it (the same text, so that a query uses the index). */
function fieldExpr(property: string, column = "data"): string {
  return `((${column})::jsonb -> ${literal(property)})`;
}

/** The text of one top-level property's value (a link's id), as the link indexes and the inverse queries read it. */
function fieldText(property: string, column = "data"): string {
  return `((${column})::jsonb ->> ${literal(property)})`;
}

/**
 * An index name of ours: `rsc_<kind>_` and a digest of the statement that makes it (short of PostgreSQL's 63
 * bytes), so that an index whose definition changes in a later version is another index: the old one dropped.
 */
function indexName(kind: string, sql: string): string {
  return `${OWNED_PREFIX}${kind}_${createHash("sha256").update(sql).digest("hex").slice(0, 24)}`;
}

function isSequence(resource: ResourceSpec): boolean {
  return resource.idForm?.kind === "sequence";
}

/** The collections of a spec by name (a link's target is looked up there). */
type Resources = ReadonlyMap<string, ResourceSpec>;

/**
 * An instance-link field's own column: the target's id read out of the document (a stored generated column,
 * bigint when the target's ids are a sequence), which a foreign key on the target's id holds whole in the
 * database and the link index orders. Named `rsc_l_` and a digest of the property and the type (any
 * property name fits; a changed target type is another column).
 */
interface LinkColumn {
  readonly field: string;
  readonly target: string;
  readonly column: string;
  readonly type: "text" | "bigint";
}

/** The link columns of `resource` (its instance-link fields), by field name. */
function linkColumns(resource: ResourceSpec, resources: Resources): Map<string, LinkColumn> {
  const columns = new Map<string, LinkColumn>();
  for (const field of resource.fields) {
    if (field.link?.kind !== "instance") continue;
    const target = resources.get(field.link.target);
    if (target === undefined) continue;
    const type = isSequence(target) ? "bigint" : "text";
    const column = `${OWNED_PREFIX}l_${createHash("sha256").update(`${field.name}\u0000${type}`).digest("hex").slice(0, 24)}`;
    columns.set(field.name, { field: field.name, target: target.collection, column, type });
  }
  return columns;
}

/** The name of the foreign key of one link column. */
function foreignKeyName(table: string, link: LinkColumn): string {
  return `${OWNED_PREFIX}fk_${createHash("sha256").update(`${table}\u0000${link.column}\u0000${link.target}`).digest("hex").slice(0, 24)}`;
}

/** What the schema of one collection should be: index name → CREATE INDEX statement (as pg_indexes shows it, minus the schema). */
function wantedIndexes(resource: ResourceSpec, resources: Resources): Map<string, { sql: string; unique?: string }> {
  const table = ident(resource.collection);
  const wanted = new Map<string, { sql: string; unique?: string }>();
  const add = (kind: string, definition: string, unique?: string) => {
    const name = indexName(kind, `${table} ${definition}`);
    wanted.set(name, { sql: `CREATE ${unique !== undefined ? "UNIQUE " : ""}INDEX IF NOT EXISTS ${ident(name)} ON ${table} ${definition}`, ...(unique !== undefined ? { unique } : {}) });
  };
  // JSON null and a missing property are no value: they may repeat, as on SQLite (json_extract gives NULL for both).
  for (const property of new Set(resource.unique)) add("unique", `(${fieldExpr(property)}) WHERE jsonb_typeof(${fieldExpr(property)}) <> 'null'`, property);
  // Leading with the link's column it serves the inverse queries and the foreign key's checks on a delete of the target.
  for (const link of linkColumns(resource, resources).values()) add("link", `(${ident(link.column)}, created_at, id)`);
  add("owner", "(owner, created_at, id)");
  add("order", "(created_at, id)");
  return wanted;
}

/**
 * Errors of a database that cannot serve now, which a retry may get past: connection exceptions (08…), shutting
 * down or restarting (57P…), too many connections (53300), a deadlock between two writes (40P01: one of them is
 * undone) or a serialization failure (40001).
 */
function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== "string") return error instanceof Error && /timeout exceeded when trying to connect|Connection terminated/i.test(error.message);
  return code.startsWith("08") || code.startsWith("57P") || code === "53300" || code === "40P01" || code === "40001" || code === "ECONNREFUSED" || code === "ECONNRESET" || code === "ETIMEDOUT" || code === "EPIPE" || code === "ENOTFOUND" || code === "EAI_AGAIN";
}

type Queryable = pg.Pool | pg.PoolClient;

/**
 * Opens the store on the database at `url`, creating and migrating the tables of `spec` (under an advisory
 * lock: processes starting at once take turns). Throws when the database cannot be reached or the schema
 * cannot be brought in line (MigrationRefused, a clear message: existing duplicates of a new x-unique, a newly
 * required property without a default; ids of another form).
 * @example const store = await openPgStore(spec, process.env.DATABASE_URL!);
 */
export async function openPgStore(spec: ServiceSpec, url: string, options: PgStoreOptions = {}): Promise<Store> {
  const pool = newPool(url, options);
  try {
    await migrate(pool, spec, {});
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return PgStore.forService(pool, spec);
}

function newPool(url: string, options: PgStoreOptions): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? DEFAULT_POOL_SIZE, connectionTimeoutMillis: options.connectTimeoutMs ?? 5000 });
  // An idle connection the server closes (a restart) is an error of the pool's, not of a request: logged by nobody, replaced on demand.
  pool.on("error", () => undefined);
  return pool;
}

/**
 * Brings the database at `url` in line with `spec` as the service does at start-up, or with `dryRun` only
 * says how (nothing written); `thorough` checks every required property (migration.ts). Returns the
 * statements, run or planned. Throws MigrationRefused when the data needs a decision of yours.
 * @example (await migratePg(spec, process.env.DATABASE_URL!, { dryRun: true })).map((s) => s.sql)
 */
export async function migratePg(spec: ServiceSpec, url: string, options: MigrateOptions = {}): Promise<MigrationStep[]> {
  const pool = newPool(url, { poolSize: 1 });
  try {
    return await migrate(pool, spec, options);
  } finally {
    await pool.end().catch(() => undefined);
  }
}

/** Creates and migrates every collection's table, index and stored instances under the migration lock; returns the statements run (or, dry, planned). */
async function migrate(pool: pg.Pool, spec: ServiceSpec, options: MigrateOptions): Promise<MigrationStep[]> {
  const client = await pool.connect();
  const steps: MigrationStep[] = [];
  const run = async (step: MigrationStep) => {
    if (options.dryRun !== true) await client.query(step.sql);
    steps.push(step);
  };
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      const present = await client.query<{ table_name: string; data_type: string }>(
        "SELECT table_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'id'",
      );
      const idTypes = new Map(present.rows.map((r) => [r.table_name, r.data_type]));
      const owned = await client.query<{ tablename: string; indexname: string }>("SELECT tablename, indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE 'rsc\\_%'");
      const indexes = new Map<string, Set<string>>();
      for (const r of owned.rows) (indexes.get(r.tablename) ?? indexes.set(r.tablename, new Set()).get(r.tablename)!).add(r.indexname);
      const tables = (await client.query<{ states: boolean; sequences: boolean }>(`SELECT to_regclass(${literal(SCHEMA_TABLE)}) IS NOT NULL AS states, to_regclass(${literal(SEQUENCES)}) IS NOT NULL AS sequences`)).rows[0]!;
      const hasStates = tables.states;
      let recorded = new Map<string, string>();
      if (hasStates) recorded = new Map((await client.query<{ collection: string; state: string }>(`SELECT collection, state FROM ${SCHEMA_TABLE}`)).rows.map((r) => [r.collection, r.state]));
      else await run({ sql: `CREATE TABLE IF NOT EXISTS ${SCHEMA_TABLE} (collection text PRIMARY KEY, state text NOT NULL)`, why: "the record of what each collection's instances hold" });
      const resources: Resources = new Map(spec.resources.map((r) => [r.collection, r]));
      const owns = await client.query<{ table_name: string; column_name: string }>(
        "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name LIKE 'rsc\\_l\\_%'",
      );
      const columns = new Map<string, Set<string>>();
      for (const r of owns.rows) (columns.get(r.table_name) ?? columns.set(r.table_name, new Set()).get(r.table_name)!).add(r.column_name);
      for (const resource of spec.resources) {
        const c = resource.collection;
        await migrateCollection(client, resource, resources, idTypes.get(c), indexes.get(c) ?? new Set(), columns.get(c) ?? new Set(), recorded.get(c), run, options.thorough === true);
      }
      await migrateForeignKeys(client, spec, resources, run);
      if (spec.resources.some(isSequence) && !tables.sequences) {
        await run({ sql: `CREATE TABLE IF NOT EXISTS ${SEQUENCES} (collection text PRIMARY KEY, last bigint NOT NULL)`, why: "the counters of the collections whose ids are a sequence" });
      }
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
  return steps;
}

async function migrateCollection(
  client: pg.PoolClient,
  resource: ResourceSpec,
  resources: Resources,
  idType: string | undefined,
  ownedIndexes: ReadonlySet<string>,
  ownedColumns: ReadonlySet<string>,
  recorded: string | undefined,
  run: (step: MigrationStep) => Promise<void>,
  thorough: boolean,
): Promise<void> {
  const c = resource.collection;
  const table = ident(c);
  const sequence = isSequence(resource);
  if (idType === undefined) {
    await run({ sql: `CREATE TABLE IF NOT EXISTS ${table} (id ${sequence ? "bigint" : "text"} PRIMARY KEY, created_at text NOT NULL, modified_at text NOT NULL, owner text, data json NOT NULL)`, why: `collection ${c} is new` });
  } else if ((idType === "bigint") !== sequence) {
    // Ids cannot change form in place: every stored link and every href clients keep names the old ids.
    throw new Error(
      `pg store: the instances of ${JSON.stringify(c)} in this database have ${idType === "bigint" ? "integer" : "string"} ids, and the definitions now ask for ` +
        `${sequence ? 'integer ids ("x-id": "sequence")' : "string ids"}; keep the x-id the collection was created with, or start on a new database`,
    );
  }
  // A link's column is derived from the document: dropping one loses nothing, and so does its foreign key with it.
  const links = new Map([...linkColumns(resource, resources).values()].map((l) => [l.column, l]));
  for (const column of ownedColumns) if (!links.has(column)) await run({ sql: `ALTER TABLE ${table} DROP COLUMN IF EXISTS ${ident(column)}`, why: `${column} (a link's column, derived from the document) is no longer wanted` });
  for (const [column, link] of links) {
    if (ownedColumns.has(column)) continue;
    const value = link.type === "bigint" ? `(${fieldText(link.field)})::bigint` : fieldText(link.field);
    await run({ sql: `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${ident(column)} ${link.type} GENERATED ALWAYS AS (${value}) STORED`, why: `${c}.${link.field} links to ${link.target}: its column, for the foreign key` });
  }
  const wanted = wantedIndexes(resource, resources);
  for (const name of ownedIndexes) if (!wanted.has(name)) await run({ sql: `DROP INDEX IF EXISTS ${ident(name)}`, why: `index ${name} is no longer wanted (no data is lost)` });
  for (const [name, { sql, unique }] of wanted) {
    if (ownedIndexes.has(name)) continue;
    // A dry run cannot try the statement: it looks for what would make it fail.
    if (unique !== undefined && idType !== undefined) await refuseDuplicates(client, c, unique);
    try {
      await run({ sql, why: unique !== undefined ? `${c}.${unique} is unique (x-unique)` : `collection ${c} is queried by this index` });
    } catch (error) {
      if (unique !== undefined && (error as { code?: unknown }).code === "23505") await refuseDuplicates(client, c, unique);
      throw error;
    }
  }
  if (idType !== undefined) {
    for (const property of requiredToCheck(resource, recorded, thorough)) {
      const where = `WHERE NOT ((data)::jsonb ? ${literal(property)})`;
      const lacking = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} ${where}`)).rows[0]!.n);
      if (lacking === 0) continue;
      const fill = fillText(resource, property, lacking);
      if (UNSTORABLE_ESCAPED.test(fill)) {
        throw new MigrationRefused(
          `the default of "${property}" (${c}) holds U+0000 or an unpaired surrogate, which PostgreSQL cannot store in text, so the ${lacking} instance(s) lacking it cannot get it: give "${property}" another default and regenerate; nothing was changed`,
        );
      }
      // Appended to the text as written (a jsonb round trip would reorder every key), as the SQLite store does.
      await run({
        sql: `UPDATE ${table} SET data = (left(data::text, -1) || CASE WHEN data::text = '{}' THEN '' ELSE ',' END || ${literal(`${fill}}`)})::json ${where}`,
        why: `${lacking} instance(s) of ${c} lack the required property ${JSON.stringify(property)}: its default`,
      });
    }
  }
  const state = stateOf(resource);
  if (recorded !== state) {
    await run({ sql: `INSERT INTO ${SCHEMA_TABLE} (collection, state) VALUES (${literal(c)}, ${literal(state)}) ON CONFLICT (collection) DO UPDATE SET state = excluded.state`, why: `record what the instances of ${c} hold` });
  }
}

/**
 * Brings the foreign keys of the link columns in line with the spec, once every table exists: each instance
 * link refers to its target's id, checked at the commit (DEFERRABLE INITIALLY DEFERRED: a delete and its
 * cascade in one transaction may go in any order). The routes check links before they write and lock what
 * they check (see the module's note), so the foreign keys refuse only what got past them; existing rows are
 * checked (VALIDATE) only when none links to nothing, so that a database with old dangling links still starts.
 */
async function migrateForeignKeys(client: pg.PoolClient, spec: ServiceSpec, resources: Resources, run: (step: MigrationStep) => Promise<void>): Promise<void> {
  const present = await client.query<{ table_name: string; conname: string }>(
    "SELECT c.relname AS table_name, k.conname FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace " +
      "WHERE n.nspname = current_schema() AND k.contype = 'f' AND k.conname LIKE 'rsc\\_fk\\_%'",
  );
  const owned = new Map<string, Set<string>>();
  for (const r of present.rows) (owned.get(r.table_name) ?? owned.set(r.table_name, new Set()).get(r.table_name)!).add(r.conname);
  for (const resource of spec.resources) {
    const c = resource.collection;
    const table = ident(c);
    const wanted = new Map([...linkColumns(resource, resources).values()].map((l) => [foreignKeyName(c, l), l]));
    for (const name of owned.get(c) ?? []) if (!wanted.has(name)) await run({ sql: `ALTER TABLE ${table} DROP CONSTRAINT IF EXISTS ${ident(name)}`, why: `foreign key ${name} is no longer wanted` });
    for (const [name, link] of wanted) {
      if (owned.get(c)?.has(name)) continue;
      await run({
        sql: `ALTER TABLE ${table} ADD CONSTRAINT ${ident(name)} FOREIGN KEY (${ident(link.column)}) REFERENCES ${ident(link.target)} (id) DEFERRABLE INITIALLY DEFERRED NOT VALID`,
        why: `${c}.${link.field} links to ${link.target}: the database refuses a link to nothing`,
      });
      // A dry run plans the column too, which may not exist yet: it reads the document instead.
      const value = link.type === "bigint" ? `(${fieldText(link.field, "l.data")})::bigint` : fieldText(link.field, "l.data");
      const dangling = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} AS l WHERE ${value} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${ident(link.target)} AS t WHERE t.id = ${value})`).catch(() => undefined);
      if (dangling !== undefined && Number(dangling.rows[0]!.n) === 0) await run({ sql: `ALTER TABLE ${table} VALIDATE CONSTRAINT ${ident(name)}`, why: `every stored ${c}.${link.field} links to an instance` });
    }
  }
}

/** Throws the store's clear message when existing records of `c` repeat a value of `property` (an x-unique index cannot be made). */
async function refuseDuplicates(client: pg.PoolClient, c: string, property: string): Promise<void> {
  const dup = await client.query<{ value: unknown; n: string }>(
    `SELECT ${fieldExpr(property)} AS value, count(*) AS n FROM ${ident(c)} WHERE jsonb_typeof(${fieldExpr(property)}) <> 'null' GROUP BY 1 HAVING count(*) > 1 LIMIT 1`,
  );
  const row = dup.rows[0];
  if (row === undefined) return;
  throw new MigrationRefused(
    `pg store: cannot make ${c}.${property} unique: existing records of collection "${c}" repeat a value of property "${property}" (e.g. ${JSON.stringify(row.value)} appears ${row.n} times); remove the duplicates or drop x-unique`,
  );
}

/** A row as the statements return it. */
interface Row {
  readonly id: string;
  readonly created_at: string;
  readonly modified_at: string;
  readonly owner: string | null;
  readonly data: Record<string, unknown>;
}

function toRecord(row: Row): StoredRecord {
  const record: { -readonly [K in keyof StoredRecord]: StoredRecord[K] } = { id: String(row.id), createdAt: row.created_at, modifiedAt: row.modified_at, data: row.data };
  if (row.owner !== null) record.owner = row.owner;
  return record;
}

/** A non-negative integer for LIMIT/OFFSET. */
function count(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

/** The statements of one collection: texts and names, made once. */
class Statements {
  readonly insert: string;
  readonly get: string;
  /** In a transaction: the row locked until the commit, so that a link check and a delete of one instance take turns across processes. */
  readonly getLocked: string;
  readonly update: string;
  readonly delete: string;
  readonly existing: string;
  /** In a transaction: the rows share-locked until the commit (a delete of one of them waits, and then finds the link). */
  readonly existingLocked: string;
  /** `existing` and `existingLocked` of one id. */
  readonly existingOne: string;
  readonly existingOneLocked: string;
  readonly nextId: string | undefined;
  /** Index name → property, to name the property of a 23505. */
  readonly uniqueByIndex: ReadonlyMap<string, string>;
  private readonly lists = new Map<string, { page: string; count: string }>();
  private readonly table: string;
  private readonly idCast: string;

  /** The instance-link fields' columns (the inverse queries read them). */
  private readonly links: ReadonlyMap<string, LinkColumn>;

  constructor(
    readonly resource: ResourceSpec,
    resources: Resources,
  ) {
    const t = (this.table = ident(resource.collection));
    this.links = linkColumns(resource, resources);
    this.idCast = isSequence(resource) ? "::bigint" : "";
    const idArray = isSequence(resource) ? "bigint[]" : "text[]";
    const cols = "id, created_at, modified_at, owner, data";
    this.insert = `INSERT INTO ${t} (${cols}) VALUES ($1${this.idCast}, $2, $3, $4, $5)`;
    this.get = `SELECT ${cols} FROM ${t} WHERE id = $1${this.idCast}`;
    this.getLocked = `${this.get} FOR UPDATE`;
    this.update = `UPDATE ${t} SET modified_at = $1, data = $2 WHERE id = $3${this.idCast}`;
    this.delete = `DELETE FROM ${t} WHERE id = $1${this.idCast}`;
    this.existing = `SELECT id FROM ${t} WHERE id = ANY($1::${idArray})`;
    this.existingLocked = `${this.existing} FOR SHARE`;
    // One id (a write's one link, the commonest check) by equality: measured against = ANY of a one-element
    // array, FOR SHARE, under 50 concurrent creates linking to one row, ~10% more creates per second.
    this.existingOne = `SELECT id FROM ${t} WHERE id = $1${this.idCast}`;
    this.existingOneLocked = `${this.existingOne} FOR SHARE`;
    this.nextId = isSequence(resource)
      ? `INSERT INTO ${SEQUENCES} (collection, last) VALUES ($1, (SELECT coalesce(max(id), 0) + 1 FROM ${t})) ON CONFLICT (collection) DO UPDATE SET last = ${SEQUENCES}.last + 1 RETURNING last`
      : undefined;
    this.uniqueByIndex = new Map([...wantedIndexes(resource, resources)].flatMap(([name, index]) => (index.unique !== undefined ? [[name, index.unique] as const] : [])));
  }

  /** False for an id no instance can have: not a number for numbered ids, or holding U+0000 (PostgreSQL text cannot). */
  canBe(id: string): boolean {
    return isSequence(this.resource) ? /^[0-9]{1,18}$/.test(id) : !id.includes("\u0000");
  }

  /** The column type of an instance-link field (undefined for any other field). */
  linkType(field: string): "text" | "bigint" | undefined {
    return this.links.get(field)?.type;
  }

  /** The page and count statements of one shape of query: $1 limit, $2 offset, then owner, value, ids as present. */
  list(owner: boolean, where: { field: string; contains: boolean } | undefined, ids: boolean): { page: string; count: string } {
    const key = `${owner ? 1 : 0}${ids ? 1 : 0}${where?.contains ? 1 : 0}:${where?.field ?? ""}`;
    let found = this.lists.get(key);
    if (found) return found;
    const params: string[] = [];
    const next = () => `$${params.push("") + 2}`;
    const conditions: string[] = [];
    if (owner) conditions.push(`t.owner = ${next()}`);
    if (where !== undefined) {
      const value = next();
      conditions.push(
        where.contains
          ? `jsonb_typeof(${fieldExpr(where.field, "t.data")}) = 'array' AND ${fieldExpr(where.field, "t.data")} @> jsonb_build_array(${value}::text)`
          : this.links.has(where.field)
            ? `t.${ident(this.links.get(where.field)!.column)} = ${value}${this.links.get(where.field)!.type === "bigint" ? "::bigint" : ""}`
            : `${fieldText(where.field, "t.data")} = ${value} AND jsonb_typeof(${fieldExpr(where.field, "t.data")}) = 'string'`,
      );
    }
    const filter = conditions.length > 0 ? ` WHERE ${conditions.join(" AND ")}` : "";
    const cols = "t.id, t.created_at, t.modified_at, t.owner, t.data";
    const from = ids ? `unnest(${next()}::text[]) WITH ORDINALITY AS q(id, pos) JOIN ${this.table} AS t ON t.id = q.id${this.idCast}` : `${this.table} AS t`;
    const order = ids ? "q.pos" : "t.created_at, t.id";
    // The count binds the same parameters after the limit and offset: shifted down by two.
    const page = `SELECT ${cols} FROM ${from}${filter} ORDER BY ${order} LIMIT $1 OFFSET $2`;
    const counted = `SELECT count(*) AS n FROM ${from}${filter}`.replace(/\$(\d+)/g, (_m, n: string) => `$${Number(n) - 2}`);
    found = { page, count: counted };
    this.lists.set(key, found);
    return found;
  }
}

/** Text PostgreSQL cannot hold in `json` (nor in `text`): U+0000 and unpaired surrogates. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** The same, as JSON.stringify escapes them. */
const UNSTORABLE_ESCAPED = /\\u0000|\\ud[89a-f][0-9a-f]{2}/;

/** A short statement name per text (pg prepares a named statement once per connection). */
const names = new Map<string, string>();
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) names.set(text, (name = `rsc_${createHash("sha256").update(text).digest("hex").slice(0, 20)}`));
  return name;
}

/** What a store and the stores of its transactions share: the collections, and their statements made once. */
interface Collections {
  readonly resources: ReadonlyMap<string, ResourceSpec>;
  readonly statements: Map<string, Statements>;
}

class PgStore implements Store {
  private ended = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly collections: Collections,
    /** Set for a transaction's store: its connection, and whether it is still open. */
    private readonly tx?: { readonly client: pg.PoolClient; open: boolean; savepoints: number },
  ) {}

  /** The store of a service (`spec`) on `pool`. */
  static forService(pool: pg.Pool, spec: ServiceSpec): PgStore {
    return new PgStore(pool, { resources: new Map(spec.resources.map((r) => [r.collection, r])), statements: new Map() });
  }

  private of(collection: string): Statements {
    let s = this.collections.statements.get(collection);
    if (s === undefined) {
      const resource = this.collections.resources.get(collection);
      if (resource === undefined) throw new Error(`pg store: unknown collection ${JSON.stringify(collection)}`);
      this.collections.statements.set(collection, (s = new Statements(resource, this.collections.resources)));
    }
    return s;
  }

  /** Runs one statement on the transaction's connection or the pool; a database out of reach is StoreBusy. */
  private async run<R extends pg.QueryResultRow>(collection: string, text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    if (this.tx !== undefined && !this.tx.open) throw new Error("pg store: this transaction has ended; use the store it was started from");
    const on: Queryable = this.tx?.client ?? this.pool;
    try {
      return await on.query<R>({ name: statementName(text), text, values });
    } catch (error) {
      if (isUnavailable(error)) throw new StoreBusy(collection, 1);
      if ((error as { code?: unknown }).code === "23503") throw new LinkViolation(collection);
      throw error;
    }
  }

  async insert(collection: string, record: StoredRecord): Promise<void> {
    const s = this.of(collection);
    try {
      await this.run(collection, s.insert, [record.id, record.createdAt, record.modifiedAt, record.owner ?? null, JSON.stringify(record.data)]);
    } catch (error) {
      throw this.uniqueOf(collection, s, error, record);
    }
  }

  async get(collection: string, id: string): Promise<StoredRecord | undefined> {
    const s = this.of(collection);
    if (!s.canBe(id)) return undefined;
    const result = await this.run<Row>(collection, this.tx !== undefined ? s.getLocked : s.get, [id]);
    return result.rows[0] && toRecord(result.rows[0]);
  }

  async existing(collection: string, ids: readonly string[]): Promise<Set<string>> {
    const s = this.of(collection);
    const wanted = ids.filter((id) => s.canBe(id));
    if (wanted.length === 0) return new Set();
    const one = wanted.length === 1;
    const text = this.tx !== undefined ? (one ? s.existingOneLocked : s.existingLocked) : one ? s.existingOne : s.existing;
    const result = await this.run<{ id: string }>(collection, text, one ? wanted : [wanted]);
    return new Set(result.rows.map((r) => String(r.id)));
  }

  async list(collection: string, query: ListQuery): Promise<Page> {
    const s = this.of(collection);
    // A link to a collection of numbered ids compares as a number: another value links to nothing; and no text
    // PostgreSQL can hold has a U+0000 (nor can a parameter carry one).
    const value = query.where === undefined ? undefined : "equals" in query.where ? query.where.equals : query.where.contains;
    if (value !== undefined && (value.includes("\u0000") || (s.linkType(query.where!.field) === "bigint" && !/^[0-9]{1,18}$/.test(value)))) return { items: [], size: 0 };
    if (query.owner?.includes("\u0000")) return { items: [], size: 0 };
    const where = query.where === undefined ? undefined : { field: query.where.field, contains: "contains" in query.where };
    const ids = query.ids?.filter((id) => s.canBe(id));
    const statements = s.list(query.owner !== undefined, where, ids !== undefined);
    const params: unknown[] = [];
    if (query.owner !== undefined) params.push(query.owner);
    if (query.where !== undefined) params.push("equals" in query.where ? query.where.equals : query.where.contains);
    if (ids !== undefined) params.push(ids);
    const [page, total] = await Promise.all([
      this.run<Row>(collection, statements.page, [count(query.limit), count(query.offset), ...params]),
      this.run<{ n: string }>(collection, statements.count, params),
    ]);
    return { items: page.rows.map(toRecord), size: Number(total.rows[0]?.n ?? 0) };
  }

  async update(collection: string, record: StoredRecord): Promise<boolean> {
    const s = this.of(collection);
    if (!s.canBe(record.id)) return false;
    try {
      const result = await this.run(collection, s.update, [record.modifiedAt, JSON.stringify(record.data), record.id]);
      return (result.rowCount ?? 0) > 0;
    } catch (error) {
      throw this.uniqueOf(collection, s, error, record);
    }
  }

  async delete(collection: string, id: string): Promise<boolean> {
    const s = this.of(collection);
    if (!s.canBe(id)) return false;
    const result = await this.run(collection, s.delete, [id]);
    return (result.rowCount ?? 0) > 0;
  }

  async nextId(collection: string): Promise<string> {
    const s = this.of(collection);
    if (s.nextId === undefined) throw new Error(`pg store: the ids of ${collection} are not a sequence`);
    const result = await this.run<{ last: string }>(collection, s.nextId, [collection]);
    return String(result.rows[0]!.last);
  }

  /**
   * A 23505 of an x-unique index as UniqueViolation naming its property; text PostgreSQL cannot hold (22P05 or
   * 22P02: a U+0000 or an unpaired surrogate in a string of `record`) as UnstorableValue naming the property;
   * any other error as it is.
   */
  private uniqueOf(collection: string, s: Statements, error: unknown, record: StoredRecord): unknown {
    const e = error as { code?: unknown; constraint?: unknown };
    if (e.code === "22P05" || e.code === "22P02") {
      // JSON.stringify escapes only U+0000 (with the other control characters) and unpaired surrogates as \u00…/\ud…
      const property = Object.keys(record.data).find((k) => UNSTORABLE.test(k) || UNSTORABLE_ESCAPED.test(JSON.stringify(record.data[k]))) ?? "";
      return new UnstorableValue(collection, property);
    }
    if (e.code === "23505" && typeof e.constraint === "string") {
      const property = s.uniqueByIndex.get(e.constraint);
      if (property !== undefined) return new UniqueViolation(collection, property);
    }
    return error;
  }

  async transaction<T>(work: (tx: Store) => Promise<T>): Promise<T> {
    if (this.tx !== undefined) return this.savepoint(work);
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      if (isUnavailable(error)) throw new StoreBusy("*", 1);
      throw error;
    }
    const state = { client, open: true, savepoints: 0 };
    let broken: unknown;
    try {
      await client.query("BEGIN");
      const tx = new PgStore(this.pool, this.collections, state);
      const value = await work(tx);
      await client.query("COMMIT");
      return value;
    } catch (error) {
      await client.query("ROLLBACK").catch((e: unknown) => (broken = e));
      if (isUnavailable(error)) throw new StoreBusy("*", 1);
      // The foreign keys are checked at the commit.
      if ((error as { code?: unknown }).code === "23503") throw new LinkViolation("*");
      throw error;
    } finally {
      state.open = false;
      // A connection whose ROLLBACK failed is not given back to the pool as it is.
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  /** A nested transaction: a savepoint of the enclosing one. */
  private async savepoint<T>(work: (tx: Store) => Promise<T>): Promise<T> {
    const state = this.tx!;
    const name = `rsc_sp_${++state.savepoints}`;
    await state.client.query(`SAVEPOINT ${name}`);
    try {
      const value = await work(this);
      await state.client.query(`RELEASE SAVEPOINT ${name}`);
      return value;
    } catch (error) {
      await state.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      throw error;
    }
  }

  /** One round trip to the database (health/ready), on the pool: throws when it does not answer within a second or two. */
  async ping(): Promise<void> {
    await withTimeout(this.pool.query("SELECT 1"), PING_TIMEOUT_MS, "PostgreSQL did not answer within 2 s");
  }

  /** Rate limits and OAuth 1.0a nonces, counted in the database: every process of the service sees the same counts. */
  get counters(): SharedCounters | undefined {
    return this.tx === undefined ? (this.shared ??= new PgCounters(this.pool)) : undefined;
  }
  private shared: PgCounters | undefined;

  async close(): Promise<void> {
    if (this.tx !== undefined || this.ended) return;
    this.ended = true;
    this.shared?.stop();
    await this.pool.end();
  }
}

/** How long health/ready waits for the database. */
const PING_TIMEOUT_MS = 2_000;

/** `promise`, or a rejection with `message` after `ms`. */
function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The table of the shared counters (`rsc_`: no collection is named so). */
const COUNTERS_TABLE = "rsc_counters";

/**
 * SharedCounters in one table: each hit is one upsert that starts a new window when the last one ended, so
 * that processes count together without a lock of their own. Rows of windows long over are deleted now
 * and then (at most once a minute, by the process that notices).
 */
class PgCounters implements SharedCounters {
  private ready: Promise<unknown> | undefined;
  private lastSweep = Date.now();
  private stopped = false;

  constructor(private readonly pool: pg.Pool) {}

  async hit(key: string, windowMs: number): Promise<{ count: number; resetAt: number }> {
    this.ready ??= this.createTable().catch((error: unknown) => {
      this.ready = undefined; // asked again at the next hit
      throw error;
    });
    await this.ready;
    const now = Date.now();
    const result = await this.pool.query<{ count: string; reset_at: string }>({
      name: "rsc_counters_hit",
      text:
        `INSERT INTO ${COUNTERS_TABLE} AS c (key, count, reset_at) VALUES ($1, 1, $2::bigint + $3::bigint) ` +
        `ON CONFLICT (key) DO UPDATE SET count = CASE WHEN c.reset_at <= $2::bigint THEN 1 ELSE c.count + 1 END, reset_at = CASE WHEN c.reset_at <= $2::bigint THEN $2::bigint + $3::bigint ELSE c.reset_at END ` +
        `RETURNING count, reset_at`,
      values: [key, now, windowMs],
    });
    if (now - this.lastSweep > 60_000 && !this.stopped) {
      this.lastSweep = now;
      void this.pool.query(`DELETE FROM ${COUNTERS_TABLE} WHERE reset_at < $1`, [now]).catch(() => undefined);
    }
    const row = result.rows[0]!;
    return { count: Number(row.count), resetAt: Number(row.reset_at) };
  }

  stop(): void {
    this.stopped = true;
  }

  /** Makes the table under the migration lock (one statement: the lock is the block's transaction's): two processes' CREATE TABLE IF NOT EXISTS at once may otherwise collide. */
  private async createTable(): Promise<void> {
    await this.pool.query(`DO $$ BEGIN PERFORM pg_advisory_xact_lock(${MIGRATION_LOCK}); CREATE TABLE IF NOT EXISTS ${COUNTERS_TABLE} (key text PRIMARY KEY, count bigint NOT NULL, reset_at bigint NOT NULL); END $$`);
  }
}
