/**
 * Starting a generated service: settings from the environment (PORT, HOST, BASE_URL, TLS_CERT_FILE,
 * TLS_KEY_FILE, TRUST_PROXY, CORS_ORIGINS, RATE_LIMIT, KEYS_FILE, DATABASE_FILE, DATABASE_BUSY_TIMEOUT_MS, DATABASE_URL, DATABASE_POOL_SIZE, EXPAND_LIMIT, the HTTP limits
 * of limits.ts), the embedded SQLite store or PostgreSQL (pg-store.ts, when DATABASE_URL names a database),
 * graceful shutdown on SIGTERM that ends within SHUTDOWN_TIMEOUT_MS however slow the clients.
 */
import "./steady-ticks.js"; // first: holds the shapes of Node's nextTick tasks (see there)
import fs from "node:fs";
import path from "node:path";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { pino } from "pino";
import { buildApp, type AppOptions } from "./app.js";
import { KeyRing } from "./keys.js";
import { SigningKeys } from "./signing-keys.js";
import { httpLimitsFrom, type HttpLimits } from "./limits.js";
import type { ServiceSpec } from "./spec.js";
import { corsOriginsFrom } from "./production.js";
import { DEFAULT_EXPAND_LIMIT } from "./represent.js";
import { DEFAULT_BUSY_TIMEOUT_MS, openSqliteStoreInParallel } from "./sqlite-store.js";
import type { Store } from "./store.js";

/** Settings of a running service, as read from the environment. */
export interface Settings {
  readonly port: number;
  readonly host: string;
  readonly baseUrl: string;
  readonly keysFile: string;
  readonly databaseFile: string;
  /** DATABASE_URL: a PostgreSQL database (postgres://…) instead of the SQLite file; undefined: the file. */
  readonly databaseUrl: string | undefined;
  /** Most connections to PostgreSQL per process (DATABASE_POOL_SIZE, default 10). */
  readonly databasePoolSize: number;
  readonly tls: { readonly cert: Buffer; readonly key: Buffer } | undefined;
  readonly logLevel: string;
  /** Most instances one response inlines through expand and fields (EXPAND_LIMIT, default 1000). */
  readonly expandLimit: number;
  /** How long a write waits for another process's database lock before a 503 (DATABASE_BUSY_TIMEOUT_MS, default 5000). */
  readonly databaseBusyTimeoutMs: number;
  /** Timeouts of the HTTP layer (REQUEST_TIMEOUT_MS, HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, SHUTDOWN_TIMEOUT_MS). */
  readonly limits: HttpLimits;
  /** CORS_ORIGINS: the origins browsers may call the service from (["*"]: any); undefined: CORS off. */
  readonly corsOrigins: readonly string[] | undefined;
  /** RATE_LIMIT: requests per minute per key (or client address without credentials); undefined: no limit. */
  readonly rateLimit: number | undefined;
  /**
   * TRUST_PROXY: which proxies' X-Forwarded-For/-Proto to believe (true, a number of hops, or addresses and
   * CIDRs): behind a TLS-terminating load balancer, Basic credentials are accepted when it says https.
   */
  readonly trustProxy: boolean | number | string;
}

/**
 * Reads the settings from `env`, with the documented defaults.
 * @example settingsFrom({ PORT: "8080" }, spec).port === 8080
 */
export function settingsFrom(env: NodeJS.ProcessEnv, spec: ServiceSpec): Settings {
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, not "${env.PORT}"`);
  const baseUrl = (env.BASE_URL ?? spec.baseUrl).replace(/\/+$/, "");
  try {
    new URL(baseUrl);
  } catch {
    throw new Error(`BASE_URL must be an absolute URL, not "${baseUrl}"`);
  }
  const certFile = env.TLS_CERT_FILE;
  const keyFile = env.TLS_KEY_FILE;
  if ((certFile === undefined) !== (keyFile === undefined)) throw new Error("set both TLS_CERT_FILE and TLS_KEY_FILE, or neither");
  return {
    port,
    host: env.HOST ?? "127.0.0.1",
    baseUrl,
    keysFile: env.KEYS_FILE ?? path.join("data", "keys.json"),
    databaseFile: env.DATABASE_FILE ?? path.join("data", `${spec.name.replace(/^@[^/]+\//, "")}.db`),
    databaseUrl: databaseUrlFrom(env),
    databasePoolSize: wholeNumber(env, "DATABASE_POOL_SIZE", 10, 1),
    tls: certFile && keyFile ? { cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) } : undefined,
    logLevel: env.LOG_LEVEL ?? "info",
    expandLimit: wholeNumber(env, "EXPAND_LIMIT", DEFAULT_EXPAND_LIMIT, 1),
    databaseBusyTimeoutMs: wholeNumber(env, "DATABASE_BUSY_TIMEOUT_MS", DEFAULT_BUSY_TIMEOUT_MS, 0),
    limits: httpLimitsFrom(env),
    corsOrigins: corsOriginsFrom(env.CORS_ORIGINS),
    rateLimit: env.RATE_LIMIT === undefined || env.RATE_LIMIT === "" || env.RATE_LIMIT === "off" ? undefined : wholeNumber(env, "RATE_LIMIT", 0, 1),
    trustProxy: trustProxyFrom(env.TRUST_PROXY),
  };
}

/**
 * TRUST_PROXY as Fastify's trustProxy: unset or "false" trusts no proxy; "true" every one (only when the
 * service cannot be reached but through them); a whole number the hops nearest the service; else addresses
 * and CIDRs, comma-separated (e.g. 10.0.0.0/8,127.0.0.1).
 */
function trustProxyFrom(text: string | undefined): boolean | number | string {
  if (text === undefined || text === "" || text === "false") return false;
  if (text === "true") return true;
  if (/^\d{1,3}$/.test(text)) return Number(text);
  if (!/^[0-9A-Fa-f:./, ]+$/.test(text)) throw new Error(`TRUST_PROXY must be true, false, a number of hops or addresses and CIDRs (10.0.0.0/8,127.0.0.1), not "${text}"`);
  return text;
}

/** DATABASE_URL when it names a PostgreSQL database; another kind of URL throws, naming the variable (its password left out). */
function databaseUrlFrom(env: NodeJS.ProcessEnv): string | undefined {
  const text = env.DATABASE_URL;
  if (text === undefined || text === "") return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error("DATABASE_URL must be a postgres:// URL (postgres://user:password@host:5432/database)");
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new Error(`DATABASE_URL must be a postgres:// URL, not a ${url.protocol}// one (unset it for the embedded SQLite file, DATABASE_FILE)`);
  }
  return text;
}

/** The whole number `env[name]` holds (at least `min`), or `fallback` when it is unset; a bad value throws, naming the variable. */
function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const text = env[name];
  if (text === undefined || text === "") return fallback;
  if (!/^\d{1,10}$/.test(text) || Number(text) < min) throw new Error(`${name} must be a whole number (${min} or more), not "${text}"`);
  return Number(text);
}

/** What createService may be given instead of what the settings select. */
export interface ServiceOptions {
  /** The settings (PORT, HOST, BASE_URL, ...): default process.env. */
  readonly env?: NodeJS.ProcessEnv | undefined;
  /** The store: default the embedded SQLite store of DATABASE_FILE. Any implementation of Store (store.ts) fits. */
  readonly store?: Store | undefined;
  /** The API keys: default the key file KEYS_FILE; KeyRing.memory() for tests. */
  readonly keys?: KeyRing | undefined;
  /** The service's logger: default a pino logger at LOG_LEVEL. */
  readonly logger?: FastifyBaseLogger | undefined;
  /** The keys of the service's own OAuth 2.0 access tokens: default beside the API keys (SigningKeys.file or .database). */
  readonly signingKeys?: SigningKeys | undefined;
}

/**
 * A built service, not yet listening: register routes and plugins on `app`, then `listen()`. A route added
 * to `app` sits under the base URL's path (unless it already does, or its config says `outsideBase: true`),
 * sees `request.caller`, and answers 401/403 from its `config.access` exactly as the generated routes do.
 */
export interface Service {
  /** The Fastify app; not ready until listen() (or app.ready()/app.inject()). */
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly keys: KeyRing;
  /** The settings read from `env`. */
  readonly settings: Settings;
  /** The service's logger (LOG_LEVEL). */
  readonly log: FastifyBaseLogger;
  /** Listens on PORT/HOST (HTTPS when TLS_CERT_FILE/TLS_KEY_FILE are set) and returns the URL; SIGTERM/SIGINT then close it gracefully. */
  listen(): Promise<string>;
  /** Stops accepting requests, lets open ones finish (cut after SHUTDOWN_TIMEOUT_MS) and closes the store. */
  close(): Promise<void>;
}

/** The user's code a service runs: hooks per collection, action handlers, and the docs folder. */
export type ServiceHandlers = Pick<AppOptions, "hooks" | "actions" | "docsDir" | "validators" | "versions">;

/**
 * Builds a service from its spec and the user's handlers, without listening: the store and keys the
 * settings select unless `options` gives them. src/generated/server.ts's createService calls it.
 * @example const service = await buildService(spec, { hooks, actions }, { env: { PORT: "0" } }); await service.listen();
 */
export async function buildService(spec: ServiceSpec, handlers: ServiceHandlers, options: ServiceOptions = {}): Promise<Service> {
  const settings = settingsFrom(options.env ?? process.env, spec);
  const log = options.logger ?? pino({ level: settings.logLevel });
  // PostgreSQL when DATABASE_URL names it (its module loaded only then); else the SQLite file, whose missing
  // tables are created on another thread while the routes are registered here.
  const postgres = options.store === undefined && settings.databaseUrl !== undefined ? await (await import("./pg-store.js")).openPgStore(spec, settings.databaseUrl, { poolSize: settings.databasePoolSize }) : undefined;
  const opened = options.store === undefined && postgres === undefined ? openSqliteStoreInParallel(spec, settings.databaseFile, { busyTimeoutMs: settings.databaseBusyTimeoutMs }) : undefined;
  const store = options.store ?? postgres ?? opened!.store;
  const created = opened?.created.then(
    () => undefined,
    (error: unknown) => error,
  );
  let app: FastifyInstance;
  let keys: KeyRing | undefined;
  let signingKeys: SigningKeys | undefined;
  try {
    // On PostgreSQL the keys are in the database too, so that every process has every key.
    keys = options.keys ?? (settings.databaseUrl !== undefined ? await KeyRing.openDatabase(settings.databaseUrl) : KeyRing.open(settings.keysFile));
    // The keys of the service's own access tokens, beside the API keys (made when the first token is issued).
    if (spec.auth.schemes.includes("oauth2")) {
      signingKeys = options.signingKeys ?? (settings.databaseUrl !== undefined ? await SigningKeys.database(settings.databaseUrl) : SigningKeys.file(settings.keysFile));
    }
    app = await buildApp({
      spec,
      store,
      keys,
      baseUrl: settings.baseUrl,
      ...handlers,
      https: settings.tls,
      logger: log,
      expandLimit: settings.expandLimit,
      limits: settings.limits,
      cors: settings.corsOrigins === undefined ? undefined : { origins: settings.corsOrigins },
      rateLimit: settings.rateLimit,
      trustProxy: settings.trustProxy,
      signingKeys,
    });
    const failed = await created;
    if (failed !== undefined) throw failed;
  } catch (error) {
    if (options.keys === undefined) await keys?.close();
    if (options.signingKeys === undefined) await signingKeys?.close();
    if (options.store === undefined) {
      // A failure of the store's creation is the one to report: the keys or the app may have failed for want of it.
      const failed = await created;
      await store.close();
      throw failed ?? error;
    }
    throw error;
  }
  const ring = keys;
  const signals = new Map<NodeJS.Signals, () => void>();
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      for (const [signal, handler] of signals) process.off(signal, handler);
      // Idle connections close at once; a client still sending (or slowly reading) gets until the
      // shutdown timeout, then its connection is cut, so that a signal always ends the process.
      const cut = setTimeout(() => app.server.closeAllConnections(), settings.limits.shutdownTimeoutMs);
      cut.unref();
      try {
        await app.close();
      } finally {
        clearTimeout(cut);
        await store.close();
        if (options.keys === undefined) await ring.close();
        if (options.signingKeys === undefined) await signingKeys?.close();
      }
    })());
  const listen = async (): Promise<string> => {
    // Fastify logs the address itself when it has the logger (LOG_LEVEL info or finer): in our words, once.
    const fastifyLogs = LISTEN_LOG_LEVELS.has(app.log.level);
    let url: string;
    try {
      url = await app.listen({
        port: settings.port,
        host: settings.host,
        listenTextResolver: (address) => `listening on ${address} (base URL ${settings.baseUrl})`,
      });
    } catch (error) {
      throw listenError(error, settings);
    }
    if (!fastifyLogs) announceListening(log, url, settings.baseUrl);
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const handler = () => {
        log.info({ signal }, "shutting down");
        close().then(
          () => process.exit(0),
          (err: unknown) => {
            log.error({ err }, "shutdown failed");
            process.exit(1);
          },
        );
      };
      signals.set(signal, handler);
      process.once(signal, handler);
    }
    return url;
  };
  return { app, store, keys, settings, log, listen, close };
}

/**
 * A failed listen in the operator's words, the socket's error kept as its `cause` and its `code` kept: the port
 * in use, a port this user may not bind, a HOST that is not this machine's. Any other error (a route of the
 * user's that Fastify refuses when it gets ready) as it is.
 * @example listenError(Object.assign(new Error("listen EADDRINUSE"), { code: "EADDRINUSE" }), { host: "127.0.0.1", port: 3000 }).message
 *   === "cannot listen on 127.0.0.1:3000: another process listens there; stop it, or set PORT to a free port"
 */
export function listenError(error: unknown, at: { readonly host: string; readonly port: number }): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = `${at.host}:${at.port}`;
  const why =
    code === "EADDRINUSE"
      ? `cannot listen on ${where}: another process listens there; stop it, or set PORT to a free port`
      : code === "EACCES"
        ? `cannot listen on ${where}: this user may not bind port ${at.port} (ports below 1024 need privileges); set PORT to 1024 or above`
        : code === "EADDRNOTAVAIL"
          ? `cannot listen on ${where}: HOST ${at.host} is not an address of this machine; set HOST to one of its addresses, or 0.0.0.0 for all`
          : code === "ENOTFOUND" || code === "EAI_AGAIN"
            ? `cannot listen on ${where}: HOST ${at.host} does not resolve to an address; set HOST to an address of this machine, or 0.0.0.0 for all`
            : undefined;
  return why === undefined ? error : Object.assign(new Error(why, { cause: error }), { code });
}

/** Levels at which Fastify's own logger prints info records, the address it listens on among them. */
const LISTEN_LOG_LEVELS = new Set(["trace", "debug", "info"]);

/** A started service: its app, store and address; `close` stops it gracefully. */
export interface RunningService {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly url: string;
  /** The service's logger (LOG_LEVEL): Fastify's too when the level is info or finer. */
  readonly log: FastifyBaseLogger;
  close(): Promise<void>;
}

/**
 * Logs where the service listens, once, whatever LOG_LEVEL is (but `silent`): an info record through a
 * child logger of level info, so that stdout stays one JSON record per line and the level stays true
 * (it is no warning), yet an operator running with LOG_LEVEL=warn still learns the address and base URL.
 * @example announceListening(log, "http://127.0.0.1:3000", "http://127.0.0.1:3000/v1") // {"level":30,…,"msg":"listening on http://127.0.0.1:3000 (base URL http://127.0.0.1:3000/v1)"}
 */
export function announceListening(log: FastifyBaseLogger, url: string, baseUrl: string): void {
  if (log.level === "silent") return;
  log.child({}, { level: "info" }).info({ url, baseUrl }, `listening on ${url} (base URL ${baseUrl})`);
}

/** Builds the service and listens at once (what `start()` of packages generated before createService does). */
export async function startService(spec: ServiceSpec, handlers: ServiceHandlers, env: NodeJS.ProcessEnv = process.env): Promise<RunningService> {
  const service = await buildService(spec, handlers, { env });
  const url = await service.listen();
  return { app: service.app, store: service.store, url, log: service.log, close: service.close };
}
