/**
 * The store seam: everything the routes need from persistence, and nothing more. The embedded SQLite
 * store implements it (sqlite-store.ts); another database implements the same interface without
 * touching the routes. Every method is async so that a networked store fits the same shape. Three
 * capabilities are optional, and the routes detect them: reads answered at once (`immediate`, the fast
 * path of a GET), transactions (`transaction`, which makes a write with its hooks, link checks and
 * cascades all-or-nothing; without it they run one statement after the other) and transactions run at
 * once (`immediateWrites`, the fast path of a create without hooks).
 */

/** One stored instance. Links are stored by id: a string for an instance link, string[] for a stored list. */
export interface StoredRecord {
  /** Its id as text, whatever the form (a sequence's "42" too: representations make it a number). */
  readonly id: string;
  readonly createdAt: string;
  readonly modifiedAt: string;
  /** Id of the owning API key, for resources with x-owner. */
  readonly owner?: string | undefined;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * A narrowing by one stored field: `equals` an instance link's id (an inverse collection, the instances
 * that link to one), or `contains` an id in a stored list of links (the lists a deleted instance leaves).
 */
export type Where = { readonly field: string; readonly equals: string } | { readonly field: string; readonly contains: string };

/** What a list may be narrowed to: a page, one owner, and/or a field's value (see Where). */
export interface ListQuery {
  readonly offset: number;
  readonly limit: number;
  readonly owner?: string | undefined;
  readonly where?: Where | undefined;
  /** Only these ids (a stored list of links), in this order. */
  readonly ids?: readonly string[] | undefined;
}

/** A page of records and the size of the whole (narrowed) collection. */
export interface Page {
  readonly items: readonly StoredRecord[];
  readonly size: number;
}

/**
 * Reads a store answers at once, with no I/O to wait for (the embedded SQLite store). The routes use
 * them when a store has them, so that a GET costs no promise; a networked store leaves them out, and
 * its async methods serve every request.
 */
export interface ImmediateReads {
  get(collection: string, id: string): StoredRecord | undefined;
  /** A page as Store.list gives it, at once; a store that leaves it out serves pages by `list`. */
  list?(collection: string, query: ListQuery): Page;
}

/**
 * Writes a store makes at once, with no I/O to wait for (the embedded SQLite store). A create whose
 * resource has no hooks to wait for runs through them in one synchronous transaction, without a promise;
 * a networked store leaves them out, and `transaction` serves every write.
 */
export interface ImmediateWrites {
  /**
   * Runs `work` at once in a transaction, committed when it returns and rolled back when it throws (the
   * error passes through); undefined, with nothing run, when the store cannot begin one now (another
   * write of the process holds its turn, another process its lock): take `transaction` then.
   */
  transactionNow<T>(work: (tx: ImmediateTransaction) => T): { readonly value: T } | undefined;
}

/** What a synchronous transaction (ImmediateWrites) may do: the reads a create checks its links with, and the create. */
export interface ImmediateTransaction {
  get(collection: string, id: string): StoredRecord | undefined;
  existing(collection: string, ids: readonly string[]): Set<string>;
  /** Throws UniqueViolation as Store.insert does. */
  insert(collection: string, record: StoredRecord): void;
  /** As Store.nextId; throws for a collection whose ids are not a sequence. */
  nextId(collection: string): string;
}

/**
 * Persistence of a service's collections. Records are plain data (StoredRecord); each collection is a
 * name of the spec. Implement the required methods for another database; add `immediate` and
 * `transaction` when the database can provide them.
 * @example const store = openSqliteStore(spec, "data/app.db"); await store.insert("books", record);
 */
export interface Store {
  /** Adds a record; throws UniqueViolation when an x-unique value is taken. Any method may throw StoreBusy. */
  insert(collection: string, record: StoredRecord): Promise<void>;
  get(collection: string, id: string): Promise<StoredRecord | undefined>;
  /** Which of `ids` exist in the collection. */
  existing(collection: string, ids: readonly string[]): Promise<Set<string>>;
  /** A page in (createdAt, id) order (a sequence's ids compared as numbers), or in the order of `query.ids`. */
  list(collection: string, query: ListQuery): Promise<Page>;
  /** Replaces a record's data and modifiedAt; throws UniqueViolation; false when it does not exist. */
  update(collection: string, record: StoredRecord): Promise<boolean>;
  /** False when there was nothing to delete. */
  delete(collection: string, id: string): Promise<boolean>;
  /**
   * The id of the next instance of a collection whose ids are a sequence (x-id "sequence"), as decimal text:
   * one more than any the collection has had, never a number a committed instance had (not even after a
   * delete). A create calls it in its transaction when the store has them; a number taken by a create that
   * is then undone may be given again. Required only when some resource's ids are a sequence (a service
   * refuses to start on a store without it).
   */
  nextId?(collection: string): Promise<string>;
  close(): Promise<void>;
  /**
   * Resolves when the database answers, throws (saying why) when it does not: `GET /health/ready`. Optional:
   * a store without it is ready whenever the service runs.
   */
  ping?(): Promise<void>;
  /**
   * Counters every process on the same database shares (SharedCounters): the rate limits and the OAuth 1.0a
   * nonces of a service run as several processes. Optional: without it each process counts for itself.
   */
  readonly counters?: SharedCounters | undefined;
  /** Present when the store reads without waiting (see ImmediateReads). */
  readonly immediate?: ImmediateReads | undefined;
  /** Present when the store writes without waiting (see ImmediateWrites). */
  readonly immediateWrites?: ImmediateWrites | undefined;
  /**
   * Present when the store has transactions: runs `work` with a store whose reads and writes belong to
   * one transaction, committed when `work` resolves and rolled back when it throws (the error passes
   * through). Other requests should not see its writes before the commit (the SQLite store keeps them
   * apart for a file; a database in memory cannot: see sqlite-store.ts). Calling `transaction` on `tx`
   * nests (a savepoint: an inner failure the outer work catches undoes the inner writes only). `tx` is
   * for `work` alone: once the transaction ends it refuses every call. May throw StoreBusy before
   * `work` starts when another writer holds the database for too long.
   * @example await store.transaction?.(async (tx) => { await tx.delete("books", id); await tx.insert("log", entry); })
   */
  transaction?<T>(work: (tx: Store) => Promise<T>): Promise<T>;
}

/**
 * Counting in fixed windows, shared through the database by every process of a service (Store.counters).
 * @example const { count, resetAt } = await counters.hit("rate:key-id", 60_000) // count 1 at the first hit of a window
 */
export interface SharedCounters {
  /**
   * Counts one hit of `key` and answers the hits of its current window: a window starts at the first hit
   * after the previous one ended and lasts `windowMs`; `resetAt` is its end (ms since the epoch).
   */
  hit(key: string, windowMs: number): Promise<{ readonly count: number; readonly resetAt: number }>;
}

/**
 * Runs `work` in a transaction of `store` when it has transactions, else with the store itself (each
 * write then stands on its own).
 */
export function inTransaction<T>(store: Store, work: (tx: Store) => Promise<T>): Promise<T> {
  return store.transaction ? store.transaction(work) : work(store);
}

/**
 * One record: at once when the store reads without waiting (ImmediateReads), else a promise — a native
 * one even from a store that returns another thenable, since andThen tells the two apart by `instanceof`.
 */
export function readRecord(store: Store, collection: string, id: string): StoredRecord | undefined | Promise<StoredRecord | undefined> {
  return store.immediate ? store.immediate.get(collection, id) : Promise.resolve(store.get(collection, id));
}

/** A page: at once when the store lists without waiting (ImmediateReads.list), else a promise (as readRecord). */
export function readPage(store: Store, collection: string, query: ListQuery): Page | Promise<Page> {
  return store.immediate?.list ? store.immediate.list(collection, query) : Promise.resolve(store.list(collection, query));
}

/**
 * `f(value)` at once when `value` is at hand, else once it resolves: how the read paths stay one code
 * for both kinds of store while a store that reads at once costs no promise.
 */
export function andThen<T, R>(value: T | Promise<T>, f: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(f) : f(value);
}

/**
 * Thrown by any method when the database cannot serve now, e.g. another process held its write lock for
 * longer than the store waits: the service answers 503 with Retry-After, and nothing was written.
 */
export class StoreBusy extends Error {
  /** Tells the error handler to answer 503 storeBusy (a name that survives module copies, unlike instanceof). */
  readonly code = "RSC_STORE_BUSY";

  constructor(
    readonly collection: string,
    /** Seconds after which a retry may succeed (the Retry-After header). */
    readonly retryAfterSeconds: number,
  ) {
    super(`${collection}: the database is locked by another writer; retry in ${retryAfterSeconds} s`);
    this.name = "StoreBusy";
  }
}

/**
 * Thrown by a write (or the commit of a transaction) that a database's own link integrity refused: a link to an
 * instance that is not there, e.g. deleted by another process meanwhile (the PostgreSQL store's foreign keys).
 * The service answers 409 conflict, and nothing was written.
 */
export class LinkViolation extends Error {
  /** Tells the error handler to answer 409 conflict (a name that survives module copies, unlike instanceof). */
  readonly code = "RSC_LINK_VIOLATION";

  constructor(readonly collection: string) {
    super(`${collection}: a link names an instance that is not there`);
    this.name = "LinkViolation";
  }
}

/**
 * Thrown by insert/update when the database cannot hold a value the service accepted: PostgreSQL text cannot
 * hold the character U+0000 nor an unpaired surrogate (\ud800 alone: valid JSON, and kept by the SQLite store).
 * The service answers 400 invalidProperty naming the property, and nothing was written.
 */
export class UnstorableValue extends Error {
  /** Tells the error handler to answer 400 invalidProperty (a name that survives module copies, unlike instanceof). */
  readonly code = "RSC_UNSTORABLE_VALUE";

  constructor(
    readonly collection: string,
    /** The top-level property holding the value ("" when it cannot be told). */
    readonly property: string,
  ) {
    super(`${collection}.${property}: the database cannot store this value (PostgreSQL text cannot hold U+0000 nor an unpaired surrogate)`);
    this.name = "UnstorableValue";
  }
}

/** Thrown by insert/update when an x-unique property repeats a value already in the collection. */
export class UniqueViolation extends Error {
  constructor(
    readonly collection: string,
    readonly property: string,
  ) {
    super(`${collection}.${property} must be unique`);
    this.name = "UniqueViolation";
  }
}
