/**
 * The keys the service signs its own OAuth 2.0 access tokens with (ES256), kept beside the API keys: in
 * `<KEYS_FILE>.signing.json` (mode 0600), or, on PostgreSQL, in the table rsc_signing_keys. The first one is
 * made when first needed; `npm run keys -- rotate-signing-key` adds a new one, which signs from then on, and
 * keeps the one before it (its tokens stay valid until they expire, and the JWKS keeps publishing it); older
 * ones are dropped. Every process reads the keys again when the file changes (checked at most once a second)
 * or, on PostgreSQL, when a token names a key id it lacks (at most every 5 s) and every minute.
 */
import fs from "node:fs";
import path from "node:path";
import { exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { withLock, writeAtomic } from "./keys.js";

/** The algorithm of the service's own tokens. */
export const SIGNING_ALGORITHM = "ES256";

/** One signing key: its id and private JWK (the public half is derived from it). */
interface StoredSigningKey {
  readonly kid: string;
  readonly jwk: JWK;
  readonly createdAt: string;
}

/** A signing key ready to use: CryptoKeys imported once. */
export interface SigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  /** The public JWK as the JWKS publishes it. */
  readonly publicJwk: JWK;
}

/** How many keys are kept: the one that signs and the one before it. */
const KEPT = 2;
const FILE_CHECK_MS = 1_000;
const DATABASE_RELOAD_MS = 60_000;
const UNKNOWN_KID_RELOAD_MS = 5_000;
const TABLE = "rsc_signing_keys";
/** The advisory lock of the PostgreSQL store's migrations ("rscs", as pg-store.ts; not imported: that module loads pg). */
const MIGRATION_LOCK = 0x72736373;

/** Where the keys are kept: a file, or a PostgreSQL database. */
interface Backend {
  read(): Promise<StoredSigningKey[]>;
  /** Applies `change` to the stored keys, with every other writer kept out meanwhile. */
  change(change: (keys: readonly StoredSigningKey[]) => StoredSigningKey[] | undefined): Promise<StoredSigningKey[]>;
  /** Whether the stored keys may have changed since the last read (cheap: a stat, a clock). */
  stale(now: number): boolean;
  close(): Promise<void>;
}

/** The signing keys of a service; `current()` makes the first one when there is none. */
export class SigningKeys {
  private keys: SigningKey[] = [];
  private loadedAt = 0;
  private lastUnknown = 0;
  private loading: Promise<void> | undefined;

  private constructor(private readonly backend: Backend) {}

  /** The keys in `<keysFile>.signing.json`. */
  static file(keysFile: string): SigningKeys {
    return new SigningKeys(fileBackend(`${path.resolve(keysFile)}.signing.json`));
  }

  /** The keys in the PostgreSQL database at `url` (table rsc_signing_keys, made when missing). */
  static async database(url: string): Promise<SigningKeys> {
    return new SigningKeys(await databaseBackend(url));
  }

  /** Keys held in memory only (tests). */
  static memory(): SigningKeys {
    let stored: StoredSigningKey[] = [];
    return new SigningKeys({
      read: async () => stored,
      change: async (change) => (stored = change(stored) ?? stored),
      stale: () => false,
      close: async () => undefined,
    });
  }

  /** The key that signs now (made and stored when there is none yet). */
  async current(): Promise<SigningKey> {
    await this.fresh();
    if (this.keys.length === 0) {
      // Made before the change, which runs with the other writers kept out: a key another process stored meanwhile wins.
      const made = await newStoredKey();
      await this.install(await this.backend.change((keys) => (keys.length > 0 ? undefined : [made])).then(materialize));
    }
    return this.keys.at(-1)!;
  }

  /** The key `kid` names, reading the stored keys again (at most every 5 s) when it is not known here. */
  async byKid(kid: string): Promise<SigningKey | undefined> {
    await this.fresh();
    let key = this.keys.find((k) => k.kid === kid);
    const now = Date.now();
    if (key === undefined && now - this.lastUnknown > UNKNOWN_KID_RELOAD_MS) {
      this.lastUnknown = now;
      await this.reload();
      key = this.keys.find((k) => k.kid === kid);
    }
    return key;
  }

  /** The public keys, newest first, as a JWKS document publishes them. */
  async jwks(): Promise<{ keys: JWK[] }> {
    await this.current();
    return { keys: [...this.keys].reverse().map((k) => k.publicJwk) };
  }

  /** Adds a new signing key (it signs from now on) and drops all but the one before it; answers the new key's id. */
  async rotate(): Promise<string> {
    const made = await newStoredKey();
    await this.install(await this.backend.change((keys) => [...keys, made].slice(-KEPT)).then(materialize));
    return made.kid;
  }

  async close(): Promise<void> {
    await this.backend.close();
  }

  private async fresh(): Promise<void> {
    if (this.loadedAt === 0 || this.backend.stale(Date.now())) await this.reload();
  }

  private reload(): Promise<void> {
    this.loading ??= this.backend
      .read()
      .then(materialize)
      .then((keys) => this.install(keys))
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }

  private async install(keys: SigningKey[]): Promise<void> {
    this.keys = keys;
    this.loadedAt = Date.now();
  }
}

/** A new ES256 key pair as stored: a random key id and the private JWK. */
async function newStoredKey(): Promise<StoredSigningKey> {
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = Buffer.from(crypto.getRandomValues(new Uint8Array(12))).toString("base64url");
  return { kid, jwk: { ...jwk, kid, alg: SIGNING_ALGORITHM, use: "sig" }, createdAt: new Date().toISOString() };
}

/** Stored keys as usable ones, oldest first. */
async function materialize(stored: readonly StoredSigningKey[]): Promise<SigningKey[]> {
  const out: SigningKey[] = [];
  for (const s of stored) {
    const { d: _d, ...pub } = s.jwk;
    const publicJwk: JWK = { kty: pub.kty, crv: pub.crv, x: pub.x, y: pub.y, kid: s.kid, alg: SIGNING_ALGORITHM, use: "sig" };
    out.push({
      kid: s.kid,
      privateKey: (await importJWK(s.jwk, SIGNING_ALGORITHM)) as CryptoKey,
      publicKey: (await importJWK(publicJwk, SIGNING_ALGORITHM)) as CryptoKey,
      publicJwk,
    });
  }
  return out;
}

function parseStored(text: string, where: string): StoredSigningKey[] {
  const doc = JSON.parse(text) as { version?: unknown; keys?: unknown };
  if (doc.version !== 1 || !Array.isArray(doc.keys)) throw new Error(`signing keys ${where} are corrupt: expected {"version":1,"keys":[…]}`);
  return doc.keys.map((k: { kid?: unknown; jwk?: unknown; createdAt?: unknown }, i: number) => {
    if (typeof k.kid !== "string" || typeof k.jwk !== "object" || k.jwk === null || typeof k.createdAt !== "string") throw new Error(`signing keys ${where} are corrupt at keys[${i}]`);
    return { kid: k.kid, jwk: k.jwk as JWK, createdAt: k.createdAt };
  });
}

function fileBackend(file: string): Backend {
  let signature = "";
  let checkedAt = 0;
  const stamp = () => {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    return stat === undefined ? "missing" : `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  };
  const readNow = (): StoredSigningKey[] => {
    signature = stamp();
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    return parseStored(text, file);
  };
  return {
    read: async () => readNow(),
    change: async (change) => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      return withLock(file, () => {
        const now = readNow();
        const next = change(now);
        if (next === undefined) return now;
        writeAtomic(file, `${JSON.stringify({ version: 1, keys: next }, null, 2)}\n`);
        signature = stamp();
        return next;
      });
    },
    stale: (now) => {
      if (now - checkedAt < FILE_CHECK_MS) return false;
      checkedAt = now;
      return stamp() !== signature;
    },
    close: async () => undefined,
  };
}

async function databaseBackend(url: string): Promise<Backend> {
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 5000 });
  pool.on("error", () => undefined);
  // Made under the stores' migration lock (pg-store.ts): two processes' CREATE TABLE IF NOT EXISTS at once may collide.
  await pool.query(`DO $$ BEGIN PERFORM pg_advisory_xact_lock(${MIGRATION_LOCK}); CREATE TABLE IF NOT EXISTS ${TABLE} (kid text PRIMARY KEY, jwk text NOT NULL, created_at text NOT NULL); END $$`);
  let readAt = 0;
  const readWith = async (q: import("pg").Pool | import("pg").PoolClient): Promise<StoredSigningKey[]> => {
    const rows = await q.query<{ kid: string; jwk: string; created_at: string }>(`SELECT kid, jwk, created_at FROM ${TABLE} ORDER BY created_at, kid`);
    readAt = Date.now();
    return rows.rows.map((r) => ({ kid: r.kid, jwk: JSON.parse(r.jwk) as JWK, createdAt: r.created_at }));
  };
  return {
    read: () => readWith(pool),
    change: async (change) => {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        await client.query(`LOCK TABLE ${TABLE} IN EXCLUSIVE MODE`);
        const now = await readWith(client);
        const next = change(now);
        if (next !== undefined) {
          await client.query(`DELETE FROM ${TABLE}`);
          for (const k of next) await client.query(`INSERT INTO ${TABLE} (kid, jwk, created_at) VALUES ($1, $2, $3)`, [k.kid, JSON.stringify(k.jwk), k.createdAt]);
        }
        await client.query("COMMIT");
        return next ?? now;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    stale: (now) => now - readAt > DATABASE_RELOAD_MS,
    close: () => pool.end(),
  };
}
