/**
 * API keys (A5): a key is an id, a secret and roles. Only HMAC-SHA-256(server secret, key secret) is kept,
 * in a JSON keys file (`KEYS_FILE`, default data/keys.json), or, for a service on PostgreSQL (DATABASE_URL), in
 * its database (KeyRing.openDatabase: every process sees every key, and a revoked key stops working in all of
 * them within a second). The server secret comes from KEYS_HMAC_SECRET, else from `<keys file>.hmac` (or, on
 * PostgreSQL, the database), created on first use. Also the Authorization header parser and the
 * WWW-Authenticate challenges (A3, A6).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { AuthScheme } from "./spec.js";

/** A key as the service sees it after verification: never its secret. */
export interface Key {
  readonly id: string;
  readonly roles: readonly string[];
  readonly createdAt: string;
}

/** A freshly created key: the only time its secret exists outside the client. */
export interface NewKey {
  readonly id: string;
  readonly secret: string;
  readonly roles: readonly string[];
  /** Its OAuth 1.0a signing secret (the consumer secret; the key id is the consumer key), when asked for. */
  readonly oauth1Secret?: string;
}

/** Settings of a key ring; by default the HMAC secret comes from `env.KEYS_HMAC_SECRET` or the .hmac file. */
export interface KeyRingOptions {
  /** Environment to read KEYS_HMAC_SECRET from (default process.env). */
  readonly env?: NodeJS.ProcessEnv;
  /** The server secret itself; overrides env and file. */
  readonly hmacSecret?: string;
  /** Clock in milliseconds, for the cache TTL and the reload check (default Date.now). */
  readonly now?: () => number;
  /** Most verified secrets remembered at once (default 10,000). */
  readonly cacheLimit?: number;
}

interface StoredKey extends Key {
  /** Lower-case hex HMAC-SHA-256 of the secret. */
  readonly hash: string;
  /**
   * The key's OAuth 1.0a signing secret, sealed (AES-256-GCM under a key derived from the server secret:
   * base64url of iv, ciphertext and tag). Only keys created with it have one. Unlike the API secret, which
   * is kept as a hash only, OAuth 1.0a needs the server to recompute each request's signature with it.
   */
  readonly sealed?: string;
}

interface KeysFile {
  readonly version: 1;
  readonly keys: readonly StoredKey[];
}

/** Options of a new key. */
export interface CreateOptions {
  /** Also make an OAuth 1.0a signing secret for it (kept sealed, shown once). */
  readonly oauth1?: boolean;
}

/** Default location of the keys file, relative to the service's working directory. */
export const DEFAULT_KEYS_FILE = "data/keys.json";

const CACHE_TTL_MS = 30_000;
const CACHE_LIMIT = 10_000;
const RELOAD_CHECK_MS = 1_000;
/** Longer inputs are refused before hashing: a key secret is 43 characters. */
const MAX_SECRET_LENGTH = 1024;
const MIN_HMAC_SECRET_LENGTH = 16;
const LOCK_WAIT_MS = 5_000;
const LOCK_STALE_MS = 30_000;

function token(bytes: number): string {
  return crypto.randomBytes(bytes).toString("base64url");
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}

/** Parses and checks the text of a keys file; throws an Error naming the file and the problem. */
function parseKeysFile(text: string, file: string): StoredKey[] {
  const bad = (why: string) => new Error(`keys file ${file} is corrupt: ${why}`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw bad(`not JSON (${(error as Error).message})`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw bad("not a JSON object");
  const { version, keys } = doc as { version?: unknown; keys?: unknown };
  if (version !== 1) throw bad(`unsupported version ${JSON.stringify(version)} (expected 1)`);
  if (!Array.isArray(keys)) throw bad(`"keys" is not an array`);
  const ids = new Set<string>();
  return keys.map((k: unknown, i): StoredKey => {
    const o = (typeof k === "object" && k !== null ? k : {}) as Record<string, unknown>;
    const { id, roles, hash, createdAt, sealed } = o;
    if (typeof id !== "string" || id.length === 0) throw bad(`keys[${i}].id is not a non-empty string`);
    if (ids.has(id)) throw bad(`keys[${i}].id ${JSON.stringify(id)} appears twice`);
    ids.add(id);
    if (!Array.isArray(roles) || !roles.every((r) => typeof r === "string")) throw bad(`keys[${i}].roles is not an array of strings`);
    if (typeof hash !== "string" || !/^[0-9a-f]{64}$/.test(hash)) throw bad(`keys[${i}].hash is not 64 lower-case hex digits`);
    if (typeof createdAt !== "string") throw bad(`keys[${i}].createdAt is not a string`);
    if (sealed !== undefined && (typeof sealed !== "string" || !/^[A-Za-z0-9_-]{40,}$/.test(sealed))) throw bad(`keys[${i}].sealed is not a sealed secret`);
    return { id, roles: [...(roles as string[])], hash, createdAt, ...(sealed === undefined ? {} : { sealed }) };
  });
}

/** Writes a file atomically: a private temporary file in the same folder, then rename over the target. */
export function writeAtomic(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.${token(6)}.tmp`;
  try {
    const fd = fs.openSync(tmp, "wx", 0o600);
    try {
      fs.writeFileSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
}

/** Runs `fn` holding `<file>.lock`, so that two processes changing the keys file do not lose each other's keys. */
export function withLock<T>(file: string, fn: () => T): T {
  const lock = `${file}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.closeSync(fs.openSync(lock, "wx", 0o600));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const stat = fs.statSync(lock, { throwIfNoEntry: false });
      if (stat && Date.now() - stat.mtimeMs > LOCK_STALE_MS) {
        fs.rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`keys file ${file} is locked by another process (${lock})`);
      sleep(20);
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/** The server's HMAC secret in `<keys file>.hmac`: read it, or create it (32 random bytes, mode 0600). */
function hmacFileSecret(hmacFile: string, create: boolean): Buffer | undefined {
  const read = (): Buffer | undefined => {
    let text: string;
    try {
      text = fs.readFileSync(hmacFile, "utf8").trim();
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    if (text.length < MIN_HMAC_SECRET_LENGTH) throw new Error(`HMAC secret file ${hmacFile} is corrupt: shorter than ${MIN_HMAC_SECRET_LENGTH} characters`);
    // The text itself is the secret, so copying it into KEYS_HMAC_SECRET gives the same hashes.
    return Buffer.from(text, "utf8");
  };
  const existing = read();
  if (existing || !create) return existing;
  fs.mkdirSync(path.dirname(hmacFile), { recursive: true });
  const tmp = `${hmacFile}.${process.pid}.${token(6)}.tmp`;
  fs.writeFileSync(tmp, `${token(32)}\n`, { mode: 0o600, flag: "wx" });
  try {
    fs.linkSync(tmp, hmacFile); // atomic create-if-absent: a concurrent creator's file wins, complete
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return read();
}

function publicKey(k: StoredKey): Key {
  return { id: k.id, roles: k.roles, createdAt: k.createdAt };
}

/** Checks and normalises roles for a new key: non-empty names without spaces, commas or control characters, once each. */
function checkRoles(roles: readonly string[]): string[] {
  const out: string[] = [];
  for (const role of roles) {
    if (typeof role !== "string" || !/^[^\s,\u0000-\u001f\u007f]+$/u.test(role)) {
      throw new Error(`invalid role ${JSON.stringify(role)}: a role is a non-empty name without spaces or commas`);
    }
    if (!out.includes(role)) out.push(role);
  }
  return out;
}

/** The service's API keys: verifies Bearer and Basic credentials against the stored hashes and manages the keys file. */
/** The tables of the keys in a PostgreSQL database (`rsc_`: no collection is named so). */
const KEYS_TABLE = "rsc_keys";
const KEYS_STATE = "rsc_keys_state";
/** How often a process asks the database whether its keys changed (a revocation reaches every process within a second). */
const DATABASE_POLL_MS = 500;

/** What a key ring on PostgreSQL holds: its pool, the version of the keys it has, the poller. */
interface DatabaseKeys {
  readonly pool: import("pg").Pool;
  version: string;
  timer: NodeJS.Timeout | undefined;
  polling: boolean;
}

export class KeyRing {
  private database: DatabaseKeys | undefined;
  private keys: StoredKey[] = [];
  private byId = new Map<string, StoredKey>();
  private byHash = new Map<string, StoredKey>();
  private readonly cache = new Map<string, { key: StoredKey; expires: number }>();
  /** OAuth 1.0a secrets unsealed so far, by their sealed text. */
  private readonly unsealed = new Map<string, string>();
  private hmacKey: Buffer | undefined;
  private signature = "";
  private lastCheck: number;
  private broken: Error | undefined;
  private readonly now: () => number;
  private readonly cacheLimit: number;

  private constructor(
    private readonly file: string | undefined,
    private readonly fixedSecret: Buffer | undefined,
    options: KeyRingOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.cacheLimit = Math.max(0, options.cacheLimit ?? CACHE_LIMIT);
    this.lastCheck = this.now();
  }

  /** Opens the keys file (missing = no keys; corrupt = Error); the HMAC secret file is created when first needed. */
  static open(file: string, options: KeyRingOptions = {}): KeyRing {
    const env = options.env ?? process.env;
    const configured = options.hmacSecret ?? (env.KEYS_HMAC_SECRET ? env.KEYS_HMAC_SECRET : undefined);
    if (configured !== undefined && configured.length < MIN_HMAC_SECRET_LENGTH) {
      throw new Error(`KEYS_HMAC_SECRET must be at least ${MIN_HMAC_SECRET_LENGTH} characters long`);
    }
    const ring = new KeyRing(path.resolve(file), configured === undefined ? undefined : Buffer.from(configured, "utf8"), options);
    ring.load();
    if (ring.keys.length > 0 && !ring.fixedSecret && !fs.existsSync(ring.hmacFile())) {
      throw new Error(
        `keys file ${ring.file} holds ${ring.keys.length} key(s) but their HMAC secret ${ring.hmacFile()} is missing: ` +
          `restore that file or set KEYS_HMAC_SECRET to its content`,
      );
    }
    return ring;
  }

  /**
   * The keys of a service on PostgreSQL (`url`: its DATABASE_URL), in the tables rsc_keys and rsc_keys_state,
   * made when missing. The HMAC secret is KEYS_HMAC_SECRET, else one kept in the database (made on first use;
   * set KEYS_HMAC_SECRET to keep it out of the database). The keys are read now and again whenever another
   * process changes them (asked every half second): verification itself never waits for the database. `close`
   * stops asking.
   */
  static async openDatabase(url: string, options: KeyRingOptions = {}): Promise<KeyRing> {
    const env = options.env ?? process.env;
    const configured = options.hmacSecret ?? (env.KEYS_HMAC_SECRET ? env.KEYS_HMAC_SECRET : undefined);
    if (configured !== undefined && configured.length < MIN_HMAC_SECRET_LENGTH) {
      throw new Error(`KEYS_HMAC_SECRET must be at least ${MIN_HMAC_SECRET_LENGTH} characters long`);
    }
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5000 });
    pool.on("error", () => undefined);
    try {
      await pool.query(`CREATE TABLE IF NOT EXISTS ${KEYS_TABLE} (id text PRIMARY KEY, roles json NOT NULL, hash text NOT NULL UNIQUE, created_at text NOT NULL)`);
      await pool.query(`ALTER TABLE ${KEYS_TABLE} ADD COLUMN IF NOT EXISTS sealed text`);
      await pool.query(`CREATE TABLE IF NOT EXISTS ${KEYS_STATE} (one boolean PRIMARY KEY DEFAULT true CHECK (one), version bigint NOT NULL, hmac text NOT NULL)`);
      // One row: the keys' version (one more at every change) and the HMAC secret made for the database.
      await pool.query(`INSERT INTO ${KEYS_STATE} (one, version, hmac) VALUES (true, 0, $1) ON CONFLICT (one) DO NOTHING`, [token(32)]);
      const state = await pool.query<{ hmac: string }>(`SELECT hmac FROM ${KEYS_STATE}`);
      const secret = configured !== undefined ? Buffer.from(configured, "utf8") : Buffer.from(state.rows[0]!.hmac, "utf8");
      const ring = new KeyRing(undefined, secret, options);
      ring.database = { pool, version: "", timer: undefined, polling: false };
      await ring.reloadFromDatabase();
      ring.database.timer = setInterval(() => void ring.pollDatabase(), DATABASE_POLL_MS);
      ring.database.timer.unref();
      return ring;
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
  }

  /** Stops asking the database for changes and closes its connections (a key ring on a file: nothing to do). */
  async close(): Promise<void> {
    const db = this.database;
    if (db === undefined) return;
    this.database = undefined;
    if (db.timer !== undefined) clearInterval(db.timer);
    await db.pool.end();
  }

  /** Reads every key of the database and installs them with their version. */
  private async reloadFromDatabase(): Promise<void> {
    const db = this.database!;
    const client = await db.pool.connect();
    try {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const version = await client.query<{ version: string }>(`SELECT version FROM ${KEYS_STATE}`);
      const rows = await client.query<{ id: string; roles: string[]; hash: string; created_at: string; sealed: string | null }>(`SELECT id, roles, hash, created_at, sealed FROM ${KEYS_TABLE} ORDER BY created_at, id`);
      await client.query("COMMIT");
      this.install(
        rows.rows.map((r) => ({ id: r.id, roles: r.roles, hash: r.hash, createdAt: r.created_at, ...(r.sealed === null ? {} : { sealed: r.sealed }) })),
        "",
      );
      db.version = String(version.rows[0]?.version ?? "0");
    } finally {
      client.release();
    }
  }

  /** Reloads the keys when another process changed them; the database out of reach keeps the keys as they were (none can change meanwhile). */
  private async pollDatabase(): Promise<void> {
    const db = this.database;
    if (db === undefined || db.polling) return;
    db.polling = true;
    try {
      const now = await db.pool.query<{ version: string }>(`SELECT version FROM ${KEYS_STATE}`);
      if (String(now.rows[0]?.version) !== db.version) await this.reloadFromDatabase();
    } catch {
      // asked again in half a second
    } finally {
      db.polling = false;
    }
  }

  /** Runs `change` on the database's keys in a transaction that counts the keys' version up; this ring is reloaded after. */
  private async changeDatabase<T>(change: (client: import("pg").PoolClient) => Promise<T>): Promise<T> {
    const db = this.database!;
    const client = await db.pool.connect();
    let result: T;
    try {
      await client.query("BEGIN");
      result = await change(client);
      await client.query(`UPDATE ${KEYS_STATE} SET version = version + 1`);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    await this.reloadFromDatabase();
    return result;
  }

  /** create, on a key ring of either kind: on PostgreSQL it is stored in the database before it returns. */
  async createKey(roles: readonly string[], options: CreateOptions = {}): Promise<NewKey> {
    if (this.database === undefined) return this.create(roles, options);
    const checked = checkRoles(roles);
    const secret = token(32);
    const hash = this.hash(secret, true);
    const id = token(16);
    const oauth1Secret = options.oauth1 === true ? token(32) : undefined;
    const sealed = oauth1Secret === undefined ? null : this.seal(oauth1Secret);
    await this.changeDatabase((client) => client.query(`INSERT INTO ${KEYS_TABLE} (id, roles, hash, created_at, sealed) VALUES ($1, $2, $3, $4, $5)`, [id, JSON.stringify(checked), hash, new Date(this.now()).toISOString(), sealed]));
    return { id, secret, roles: checked, ...(oauth1Secret === undefined ? {} : { oauth1Secret }) };
  }

  /** revoke, on a key ring of either kind: on PostgreSQL every process stops accepting the key within a second. */
  async revokeKey(id: string): Promise<boolean> {
    if (this.database === undefined) return this.revoke(id);
    const removed = await this.changeDatabase((client) => client.query(`DELETE FROM ${KEYS_TABLE} WHERE id = $1`, [id]));
    return (removed.rowCount ?? 0) > 0;
  }

  /** A key ring that lives only in memory (tests): a random HMAC secret, no file. */
  static memory(options: Omit<KeyRingOptions, "env"> = {}): KeyRing {
    const secret = options.hmacSecret === undefined ? crypto.randomBytes(32) : Buffer.from(options.hmacSecret, "utf8");
    return new KeyRing(undefined, secret, options);
  }

  /**
   * Creates a key with these roles, persists its hash, and returns the only copy of its secret (and, with
   * `oauth1`, of its OAuth 1.0a signing secret, which is kept sealed: see StoredKey.sealed).
   */
  create(roles: readonly string[], options: CreateOptions = {}): NewKey {
    if (this.database !== undefined) throw new Error("the keys are in the database: use createKey");
    const checked = checkRoles(roles);
    const secret = token(32);
    const hash = this.hash(secret, true);
    const oauth1Secret = options.oauth1 === true ? token(32) : undefined;
    const sealed = oauth1Secret === undefined ? undefined : this.seal(oauth1Secret);
    const created = this.change((keys) => {
      let id = token(16);
      while (keys.some((k) => k.id === id)) id = token(16);
      const key: StoredKey = { id, roles: checked, hash, createdAt: new Date(this.now()).toISOString(), ...(sealed === undefined ? {} : { sealed }) };
      return { keys: [...keys, key], result: key };
    });
    return { id: created.id, secret, roles: checked, ...(oauth1Secret === undefined ? {} : { oauth1Secret }) };
  }

  /**
   * The OAuth 1.0a signing secret of key `id` (the consumer secret of its signed requests), or undefined when
   * the key is unknown or was made without one. Unsealed once per key and kept in memory.
   */
  oauth1Secret(id: string): string | undefined {
    this.refresh();
    const key = this.byId.get(id);
    if (key?.sealed === undefined) return undefined;
    let open = this.unsealed.get(key.sealed);
    if (open === undefined) {
      open = this.unseal(key.sealed);
      this.unsealed.set(key.sealed, open);
    }
    return open;
  }

  /** The AES-256-GCM key that seals OAuth 1.0a secrets: derived from the server secret, never stored. */
  private sealingKey(): Buffer {
    const secret = this.secretKey(true);
    if (!secret) throw new Error("no HMAC secret");
    return crypto.createHmac("sha256", secret).update("resourcery: the key sealing OAuth 1.0a signing secrets").digest();
  }

  private seal(text: string): string {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv("aes-256-gcm", this.sealingKey(), iv);
    const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url");
  }

  private unseal(sealed: string): string {
    const raw = Buffer.from(sealed, "base64url");
    const decipher = crypto.createDecipheriv("aes-256-gcm", this.sealingKey(), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString("utf8");
  }

  /** Removes a key (from the file too); false when there is no key with that id. */
  revoke(id: string): boolean {
    if (this.database !== undefined) throw new Error("the keys are in the database: use revokeKey");
    return this.change((keys) => {
      const found = keys.some((k) => k.id === id);
      return { keys: found ? keys.filter((k) => k.id !== id) : keys, result: found };
    });
  }

  /** The keys (ids, roles, creation times), oldest first, as the keys file has them now. */
  list(): Key[] {
    this.refresh();
    return this.keys.map(publicKey);
  }

  /** The key with this id (its roles as they are now), or undefined: a revoked key is gone within a second. */
  get(id: string): Key | undefined {
    this.refresh();
    const key = this.byId.get(id);
    return key === undefined ? undefined : publicKey(key);
  }

  /** The key whose secret this is (a Bearer token), or undefined. */
  verifySecret(secret: string): Key | undefined {
    this.refresh();
    const cached = this.cached(secret);
    if (cached) return publicKey(cached);
    if (this.byHash.size === 0 || secret.length === 0 || secret.length > MAX_SECRET_LENGTH) return undefined;
    const digest = this.digest(secret);
    const key = this.byHash.get(digest.toString("hex"));
    if (!key || !crypto.timingSafeEqual(digest, Buffer.from(key.hash, "hex"))) return undefined;
    this.remember(secret, key);
    return publicKey(key);
  }

  /** The key with this id and secret (Basic credentials), or undefined. */
  verifyBasic(id: string, secret: string): Key | undefined {
    this.refresh();
    const cached = this.cached(secret);
    if (cached) return cached.id === id ? publicKey(cached) : undefined;
    if (this.byId.size === 0 || secret.length === 0 || secret.length > MAX_SECRET_LENGTH) return undefined;
    const digest = this.digest(secret); // hashed even for an unknown id, so timing does not tell ids apart
    const key = this.byId.get(id);
    if (!key || !crypto.timingSafeEqual(digest, Buffer.from(key.hash, "hex"))) return undefined;
    this.remember(secret, key);
    return publicKey(key);
  }

  private hmacFile(): string {
    return `${this.file}.hmac`;
  }

  /** The HMAC key: configured, or from the .hmac file (created when `create` is true and it is missing). */
  private secretKey(create: boolean): Buffer | undefined {
    if (this.fixedSecret) return this.fixedSecret;
    if (!this.hmacKey) this.hmacKey = hmacFileSecret(this.hmacFile(), create);
    return this.hmacKey;
  }

  private digest(secret: string): Buffer {
    const key = this.secretKey(false);
    if (!key) throw new Error(`keys file ${this.file} has keys but no HMAC secret (${this.hmacFile()} or KEYS_HMAC_SECRET)`);
    return crypto.createHmac("sha256", key).update(secret, "utf8").digest();
  }

  private hash(secret: string, create: boolean): string {
    const key = this.secretKey(create);
    if (!key) throw new Error("no HMAC secret");
    return crypto.createHmac("sha256", key).update(secret, "utf8").digest("hex");
  }

  private cached(secret: string): StoredKey | undefined {
    const hit = this.cache.get(secret);
    if (!hit) return undefined;
    if (hit.expires <= this.now()) {
      this.cache.delete(secret);
      return undefined;
    }
    return hit.key;
  }

  private remember(secret: string, key: StoredKey): void {
    if (this.cacheLimit === 0) return;
    if (this.cache.size >= this.cacheLimit) {
      // Oldest entry first: Map keeps insertion order.
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(secret, { key, expires: this.now() + CACHE_TTL_MS });
  }

  private install(keys: StoredKey[], signature: string): void {
    this.keys = keys;
    this.byId = new Map(keys.map((k) => [k.id, k]));
    this.byHash = new Map(keys.map((k) => [k.hash, k]));
    this.cache.clear();
    this.signature = signature;
    this.broken = undefined;
  }

  /** Reads the keys file and its identity (inode, size, mtime) from one open descriptor. */
  private read(): { keys: StoredKey[]; signature: string } {
    const file = this.file!;
    let fd: number;
    try {
      fd = fs.openSync(file, "r");
    } catch (error) {
      if (isNotFound(error)) return { keys: [], signature: "missing" };
      throw error;
    }
    try {
      const stat = fs.fstatSync(fd);
      const text = fs.readFileSync(fd, "utf8");
      return { keys: parseKeysFile(text, file), signature: `${stat.ino}:${stat.size}:${stat.mtimeMs}` };
    } finally {
      fs.closeSync(fd);
    }
  }

  private load(): void {
    if (this.file === undefined) return;
    const { keys, signature } = this.read();
    this.install(keys, signature);
  }

  /** Reloads the file when it changed on disk (checked at most once per second); a corrupt file fails closed. */
  private refresh(): void {
    if (this.file !== undefined) {
      const t = this.now();
      if (t - this.lastCheck >= RELOAD_CHECK_MS || t < this.lastCheck) {
        this.lastCheck = t;
        const stat = fs.statSync(this.file, { throwIfNoEntry: false });
        const signature = stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}` : "missing";
        if (signature !== this.signature) {
          try {
            this.load();
          } catch (error) {
            // No key is accepted until the file is readable again (a revocation must not be missed).
            this.install([], "");
            this.broken = error as Error;
          }
        }
      }
    }
    if (this.broken) throw this.broken;
  }

  /** Applies a change to the current keys (re-read under a lock) and persists it, or applies it in memory. */
  private change<T>(fn: (keys: readonly StoredKey[]) => { keys: readonly StoredKey[]; result: T }): T {
    const file = this.file;
    if (file === undefined) {
      const { keys, result } = fn(this.keys);
      this.install([...keys], "");
      return result;
    }
    fs.mkdirSync(path.dirname(file), { recursive: true });
    return withLock(file, () => {
      const current = this.read();
      const { keys, result } = fn(current.keys);
      if (keys !== current.keys) {
        const doc: KeysFile = { version: 1, keys: keys.map((k) => ({ id: k.id, roles: k.roles, hash: k.hash, createdAt: k.createdAt, ...(k.sealed === undefined ? {} : { sealed: k.sealed }) })) };
        writeAtomic(file, `${JSON.stringify(doc, null, 2)}\n`);
        const stat = fs.statSync(file);
        this.install([...keys], `${stat.ino}:${stat.size}:${stat.mtimeMs}`);
      } else {
        this.install(current.keys, current.signature);
      }
      return result;
    });
  }
}

/** What an Authorization header carries: Basic id and secret, a Bearer token, another scheme, nothing, or garbage. */
export type Credentials =
  | { readonly scheme: "basic"; readonly id: string; readonly secret: string }
  | { readonly scheme: "bearer"; readonly token: string }
  | { readonly scheme: "other" | "none" }
  | { readonly scheme: "malformed" };

const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;
const SCHEME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Parses an Authorization header (scheme case-insensitive; Basic is base64 of `id:secret`, the secret may hold
 * colons). Two Authorization headers reach it joined by ", " (the server joins duplicate headers), which is
 * malformed: neither of them counts.
 * @example parseAuthorization("Bearer a, Bearer b") → { scheme: "malformed" }
 */
export function parseAuthorization(header: string | undefined): Credentials {
  if (header === undefined) return { scheme: "none" };
  if (typeof header !== "string") return { scheme: "malformed" }; // an array, from a caller other than Node's parser
  // The usual header, "Bearer <token68>" exactly, without the general parse below (same answer, less work).
  if (header.startsWith("Bearer ")) {
    const token = header.slice(7);
    if (TOKEN68.test(token)) return { scheme: "bearer", token };
  }
  const text = header.trim();
  if (text === "") return { scheme: "none" };
  const m = /^(\S+)(?:[ \t]+(.*))?$/s.exec(text);
  const scheme = m?.[1];
  const rest = m?.[2]?.trim() ?? "";
  if (!scheme || !SCHEME.test(scheme)) return { scheme: "malformed" };
  switch (scheme.toLowerCase()) {
    case "basic": {
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(rest)) return { scheme: "malformed" };
      let decoded: string;
      try {
        decoded = utf8.decode(Buffer.from(rest, "base64"));
      } catch {
        return { scheme: "malformed" };
      }
      const colon = decoded.indexOf(":");
      if (colon <= 0) return { scheme: "malformed" };
      return { scheme: "basic", id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
    }
    case "bearer":
      return TOKEN68.test(rest) ? { scheme: "bearer", token: rest } : { scheme: "malformed" };
    default:
      return { scheme: "other" };
  }
}

/**
 * One WWW-Authenticate value per distinct challenge of the enabled schemes (Basic; Bearer for bearer, apiKey,
 * oauth2). `bearerError` adds RFC 6750's error code to the Bearer challenge, for a token that was sent and refused.
 * @example challenges(["bearer"], "Library", "invalid_token") → ['Bearer realm="Library", error="invalid_token"']
 */
export function challenges(schemes: readonly AuthScheme[], realm: string, bearerError?: "invalid_token"): string[] {
  // A header holds printable ASCII portably (Node refuses anything above U+00FF and clients read Latin-1
  // differently): control characters become spaces, accents are dropped ("è" → "e"), any other character
  // is "?"; quotes and backslashes are escaped (RFC 9110 quoted-string). The docs show the realm as written.
  const quoted = realm
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, " ")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^\x20-\x7e]/g, "?")
    .replace(/[\\"]/g, "\\$&");
  const out: string[] = [];
  for (const scheme of schemes) {
    const name = scheme === "basic" ? "Basic" : scheme === "oauth1" ? "OAuth" : "Bearer";
    const value = `${name} realm="${quoted}"${name === "Bearer" && bearerError ? `, error="${bearerError}"` : ""}`;
    if (!out.includes(value)) out.push(value);
  }
  return out;
}
