/**
 * The client's transport: fetch with credentials (a Bearer secret, Basic, or OAuth 2.0 client credentials
 * exchanged for an access token that is cached, shared and renewed), version-pinned Accept, per-call
 * AbortSignal and timeout, retries with backoff for idempotent requests only, conditional writes (If-Match
 * with the ETag last seen of the instance), ApiError for every non-2xx answer, and a cap on the size of an
 * answer (ResponseTooLargeError). No dependency beyond the platform's fetch, AbortController, TextDecoder
 * and btoa/Buffer.
 */

/**
 * Credentials: an API key secret as a Bearer token; key id and secret as Basic (over HTTPS only); or key id
 * and secret as OAuth 2.0 client credentials, exchanged at `<baseUrl>/oauth/token` for an access token that
 * is then sent as Bearer (scope: the roles to ask for, space-separated or as a list; default: all of the key's).
 * @example createClient({ baseUrl, auth: { clientCredentials: { id: keyId, secret, scope: ["reader"] } } })
 */
export type Auth =
  | { bearer: string }
  | { basic: { id: string; secret: string } }
  | { clientCredentials: { id: string; secret: string; scope?: string | readonly string[] } };

/** Retries of idempotent requests (GET, PUT, DELETE) on network errors, 429 and 5xx. */
export interface RetryOptions {
  /** Extra attempts after the first (default 2). */
  retries?: number;
  /** First backoff in ms, doubled per attempt with jitter (default 100). */
  minDelayMs?: number;
  /** Longest backoff in ms (default 2000). */
  maxDelayMs?: number;
}

export interface ClientOptions {
  /** Absolute URL of the service, e.g. "https://api.example.com/v1". */
  baseUrl: string;
  auth?: Auth;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
  /** Default timeout of every call, in ms (default: none). */
  timeoutMs?: number;
  /** Retry idempotent requests (default: off). */
  retry?: RetryOptions | boolean;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /** Largest answer read, in bytes: a larger one is cut off with ResponseTooLargeError (default 32 MiB). */
  maxResponseBytes?: number;
  /**
   * Send `If-Match` with the ETag last seen of an instance (from its get, create, update or replace) when
   * updating, replacing or deleting it, so that a change made meanwhile by someone else is refused with
   * PreconditionFailedError instead of overwritten (default true).
   */
  conditionalWrites?: boolean;
}

/** Options of one call. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  retry?: RetryOptions | boolean;
  /** Overrides ClientOptions.maxResponseBytes for this call. */
  maxResponseBytes?: number;
  /**
   * update, replace and delete: the `If-Match` to send, an ETag (see etagOf), or false to send none; by
   * default the ETag last seen of the instance (unless ClientOptions.conditionalWrites is false).
   */
  ifMatch?: string | false;
}

/** The default of ClientOptions.maxResponseBytes: 32 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** The error body of the service. */
export interface ErrorBody<C extends number = number> {
  status: number;
  code: C;
  property: string;
  message: string;
  dev: string;
  info: string;
}

/**
 * Thrown for every non-2xx answer, carrying the service's error body.
 * @example try { await api.books.get(id) } catch (e) { if (e instanceof ApiError && e.status === 404) … }
 */
export class ApiError<C extends number = number> extends Error implements ErrorBody<C> {
  readonly status: number;
  readonly code: C;
  readonly property: string;
  readonly dev: string;
  readonly info: string;

  constructor(body: ErrorBody<C>) {
    super(body.message);
    this.name = "ApiError";
    this.status = body.status;
    this.code = body.code;
    this.property = body.property;
    this.dev = body.dev;
    this.info = body.info;
  }
}

/**
 * Thrown when an answer is larger than maxResponseBytes: the client stops reading it (and never retries),
 * so a huge or endless answer cannot fill the memory.
 * @example try { await api.books.list({ limit: 100 }) } catch (e) { if (e instanceof ResponseTooLargeError) … }
 */
export class ResponseTooLargeError extends Error {
  constructor(
    readonly limit: number,
    readonly status: number,
  ) {
    super(`the answer is larger than ${limit} bytes (maxResponseBytes); ask for less (fields, limit) or raise maxResponseBytes`);
    this.name = "ResponseTooLargeError";
  }
}

/**
 * Thrown for a 412: the instance changed since the ETag sent in `If-Match` was read (someone else
 * updated, replaced or deleted it), so the write was refused and nothing changed. Get the instance again,
 * reapply the change to it and send it again. Never retried.
 * @example try { await api.books.update(id, patch) } catch (e) { if (e instanceof PreconditionFailedError) { await api.books.get(id); … } }
 */
export class PreconditionFailedError<C extends number = number> extends ApiError<C> {
  constructor(body: ErrorBody<C>) {
    super(body);
    this.name = "PreconditionFailedError";
    this.message = `${body.message.replace(/\.$/, "")}: the instance changed since its ETag was read; get it again, reapply the change and send it again`;
  }
}

/**
 * Thrown when the token endpoint (`<baseUrl>/oauth/token`) refuses the client credentials or fails: the
 * OAuth 2.0 `error` code ("invalid_client", "invalid_scope" …; "" when the answer had none) and its
 * `error_description`, beside the service's error body. Its message never holds the secret.
 * @example catch (e) { if (e instanceof TokenError && e.error === "invalid_client") … }
 */
export class TokenError<C extends number = number> extends ApiError<C> {
  constructor(
    body: ErrorBody<C>,
    /** The OAuth 2.0 error code of the answer, e.g. "invalid_client", "invalid_scope"; "" when it had none. */
    readonly error: string,
    /** The answer's error_description; "" when it had none. */
    readonly errorDescription: string,
  ) {
    super(body);
    this.name = "TokenError";
  }
}

/** A request as the generated functions describe it. */
export interface RequestSpec {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, string | number | boolean | readonly string[] | undefined>;
  body?: unknown;
  contentType?: string;
  accept: string;
  /** The If-Match header to send (an ETag). */
  ifMatch?: string;
}

const IDEMPOTENT = new Set(["GET", "PUT", "DELETE"]);

/**
 * How long before its expiry an access token is renewed: 30 s, or a tenth of its lifetime when that is
 * shorter (a token of 900 s is used for 870 s, one of 60 s for 54 s), so that a token does not run out
 * between being taken from the cache and reaching the service, even with the clocks a little apart.
 */
const TOKEN_MARGIN_MS = 30_000;

/** How many instances' ETags a client remembers: the most recently received ones. */
export const ETAG_MEMORY = 1000;

/** The symbol under which a returned instance keeps its ETag (non-enumerable: JSON and deep-equal comparisons ignore it). */
const ETAG: unique symbol = Symbol.for("resourcery.etag");

/**
 * The ETag a returned instance came with (the answer of its get, create, update or replace), or undefined.
 * It is kept on the object itself, not enumerable: a copy (`{ ...book }`, JSON) does not carry it.
 * @example const book = await api.books.get(id); await api.books.replace(id, body, { ifMatch: etagOf(book) });
 */
export function etagOf(instance: unknown): string | undefined {
  if (instance === null || typeof instance !== "object") return undefined;
  const etag = (instance as { [ETAG]?: unknown })[ETAG];
  return typeof etag === "string" ? etag : undefined;
}

/** `value` with `etag` kept under the ETAG symbol, when both are there. */
function withEtag(value: unknown, etag: string | null): unknown {
  if (etag && value !== null && typeof value === "object") Object.defineProperty(value, ETAG, { value: etag, enumerable: false, configurable: true });
  return value;
}

/**
 * The ETags last seen of instances, by the instance's request path ("/books/123"): the `limit` most
 * recently received, the oldest forgotten first.
 * @example memory.set("/books/1", '"v3"'); memory.get("/books/1") === '"v3"'; memory.set("/books/1", undefined) forgets it
 */
export class EtagMemory {
  private readonly etags = new Map<string, string>();

  constructor(private readonly limit = ETAG_MEMORY) {}

  get(path: string): string | undefined {
    return this.etags.get(path);
  }

  /** Remembers the ETag of the instance at `path`, or forgets it (undefined). */
  set(path: string, etag: string | undefined): void {
    this.etags.delete(path);
    if (etag === undefined) return;
    this.etags.set(path, etag);
    for (const oldest of this.etags.keys()) {
      if (this.etags.size <= this.limit) break;
      this.etags.delete(oldest);
    }
  }
}

/** An access token, and when to stop using it (ms since the epoch). */
interface Token {
  value: string;
  renewAt: number;
}

/** What one client keeps between calls: its access token (or the one request for it in flight) and the ETags it saw. */
interface ClientState {
  token?: Token;
  pending?: Promise<string>;
  readonly etags: EtagMemory;
}

// Keyed by the options object: createClient hands the same one to every collection of a client.
const states = new WeakMap<ClientOptions, ClientState>();

function stateOf(options: ClientOptions): ClientState {
  let state = states.get(options);
  if (!state) states.set(options, (state = { etags: new EtagMemory() }));
  return state;
}

/** The ETags the client of `options` has seen (shared by all its collections). */
export function etagMemory(options: ClientOptions): EtagMemory {
  return stateOf(options).etags;
}

function authorization(auth: Auth | undefined): Record<string, string> {
  if (!auth || "clientCredentials" in auth) return {};
  if ("bearer" in auth) return { authorization: `Bearer ${auth.bearer}` };
  const raw = `${auth.basic.id}:${auth.basic.secret}`;
  const encoded = typeof btoa === "function" ? btoa(unescape(encodeURIComponent(raw))) : (globalThis as any).Buffer.from(raw).toString("base64");
  return { authorization: `Basic ${encoded}` };
}

function urlOf(baseUrl: string, spec: RequestSpec): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(spec.query ?? {})) {
    if (v === undefined) continue;
    params.set(k, Array.isArray(v) ? v.join(",") : String(v));
  }
  const qs = params.toString();
  return `${baseUrl.replace(/\/+$/, "")}${spec.path}${qs ? `?${qs}` : ""}`;
}

function retryOptions(value: RetryOptions | boolean | undefined): Required<RetryOptions> | undefined {
  if (!value) return undefined;
  const o = value === true ? {} : value;
  return { retries: o.retries ?? 2, minDelayMs: o.minDelayMs ?? 100, maxDelayMs: o.maxDelayMs ?? 2000 };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      reject(signal.reason);
    }, { once: true });
  });

/** A status worth another attempt: 429 and 5xx (never 412, nor any other 4xx). */
const retryableStatus = (status: number) => status === 429 || status >= 500;

/** True for an error worth another attempt: a network error or timeout, or a token endpoint answering 429 or 5xx. */
function retryableError(error: unknown): boolean {
  if (error instanceof TokenError) return retryableStatus(error.status);
  return !(error instanceof ApiError || error instanceof ResponseTooLargeError);
}

/** True when a 401's WWW-Authenticate says the Bearer token was refused as such (expired, revoked): a new one may pass. */
function isInvalidToken(challenge: string | null): boolean {
  return /\berror\s*=\s*"?invalid_token\b/i.test(challenge ?? "");
}

/**
 * Sends one request (with retries when allowed) and returns the parsed JSON body, carrying the answer's
 * ETag (etagOf); throws ApiError (PreconditionFailedError for a 412, TokenError when no access token can be had).
 */
export async function send<T>(options: ClientOptions, spec: RequestSpec, call: CallOptions = {}): Promise<T> {
  const doFetch = options.fetch ?? fetch;
  const retry = IDEMPOTENT.has(spec.method) ? retryOptions(call.retry ?? options.retry) : undefined;
  const timeoutMs = call.timeoutMs ?? options.timeoutMs;
  const maxBytes = call.maxResponseBytes ?? options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const credentials = options.auth && "clientCredentials" in options.auth ? options.auth.clientCredentials : undefined;
  const headers: Record<string, string> = { accept: spec.accept, ...authorization(options.auth), ...options.headers };
  if (spec.body !== undefined) headers["content-type"] = spec.contentType ?? "application/json";
  if (spec.ifMatch !== undefined) headers["if-match"] = spec.ifMatch;
  let renewed = false;
  for (let attempt = 0; ; ) {
    const controller = new AbortController();
    const onAbort = () => controller.abort(call.signal?.reason);
    call.signal?.addEventListener("abort", onAbort, { once: true });
    if (call.signal?.aborted) controller.abort(call.signal.reason);
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => controller.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    try {
      // An aborted call asks for no token.
      if (controller.signal.aborted) throw controller.signal.reason;
      const token = credentials && (await untilAborted(accessToken(options, credentials), controller.signal));
      if (token !== undefined) headers.authorization = `Bearer ${token}`;
      const res = await doFetch(urlOf(options.baseUrl, spec), {
        method: spec.method,
        headers,
        signal: controller.signal,
        ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
      });
      const text = await readText(res, maxBytes, controller);
      if (res.ok) return withEtag(text ? JSON.parse(text) : undefined, res.headers.get("etag")) as T;
      if (token !== undefined && !renewed && res.status === 401 && isInvalidToken(res.headers.get("www-authenticate"))) {
        // The token was refused before anything happened: once, whatever the method, with a new one (no retry spent).
        renewed = true;
        dropToken(options, token);
        continue;
      }
      if (retry && attempt < retry.retries && retryableStatus(res.status)) {
        await sleep(backoff(retry, attempt++), call.signal);
        continue;
      }
      const body = errorBody(res.status, text);
      throw res.status === 412 ? new PreconditionFailedError(body) : new ApiError(body);
    } catch (error) {
      if (call.signal?.aborted || !retry || attempt >= retry.retries || !retryableError(error)) throw error;
      await sleep(backoff(retry, attempt++), call.signal);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      call.signal?.removeEventListener("abort", onAbort);
    }
  }
}

/** `promise`, or the abort reason of `signal` if it aborts first (the promise goes on for others awaiting it). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

type Credentials = Extract<Auth, { clientCredentials: unknown }>["clientCredentials"];

/** The client's access token: the cached one until its renewal time, else one request for a new one, shared by every call waiting for it. */
function accessToken(options: ClientOptions, credentials: Credentials): Promise<string> {
  const state = stateOf(options);
  if (state.token && Date.now() < state.token.renewAt) return Promise.resolve(state.token.value);
  state.pending ??= requestToken(options, credentials).then(
    (token) => {
      state.token = token;
      state.pending = undefined;
      return token.value;
    },
    (error: unknown) => {
      state.pending = undefined;
      throw error;
    },
  );
  return state.pending;
}

/** Forgets the access token `value` (the service refused it), unless another call has already replaced it. */
function dropToken(options: ClientOptions, value: string): void {
  const state = stateOf(options);
  if (state.token?.value === value) state.token = undefined;
}

/**
 * POST <baseUrl>/oauth/token with the client credentials as a form (RFC 6749 §4.4), within the client's
 * timeoutMs and maxResponseBytes; throws TokenError for a refusal or an answer without a Bearer token.
 */
async function requestToken(options: ClientOptions, credentials: Credentials): Promise<Token> {
  const { id, secret } = credentials;
  const scope = typeof credentials.scope === "string" ? credentials.scope : credentials.scope?.join(" ");
  const fields: [string, string][] = [["grant_type", "client_credentials"], ["client_id", id], ["client_secret", secret]];
  if (scope) fields.push(["scope", scope]);
  const started = Date.now();
  const controller = new AbortController();
  const timeoutMs = options.timeoutMs;
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => controller.abort(new Error(`the token request timed out after ${timeoutMs} ms`)), timeoutMs);
  try {
    const res = await (options.fetch ?? fetch)(`${options.baseUrl.replace(/\/+$/, "")}/oauth/token`, {
      method: "POST",
      headers: { ...options.headers, accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
      // Every reserved character percent-encoded (a space as %20, which every form decoder reads as a space).
      body: fields.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&"),
      signal: controller.signal,
    });
    const text = await readText(res, options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, controller);
    const answer = parseObject(text);
    if (!res.ok) throw tokenError(res.status, text, answer, secret);
    const value = answer?.access_token;
    if (typeof value !== "string" || value === "" || typeof answer?.token_type !== "string" || answer.token_type.toLowerCase() !== "bearer") {
      throw tokenError(res.status, "", { error_description: "the token endpoint answered without a Bearer access_token" }, secret);
    }
    const expiresIn = answer.expires_in;
    // Without expires_in the token is used until the service refuses it (invalid_token).
    const lifetime = typeof expiresIn === "number" && expiresIn > 0 ? expiresIn * 1000 : Infinity;
    return { value, renewAt: started + lifetime - Math.min(TOKEN_MARGIN_MS, lifetime / 10) };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The TokenError of a token endpoint's answer: its RFC 6749 error fields and the service's error body, with the secret blotted out of every text. */
function tokenError(status: number, text: string, answer: Record<string, unknown> | undefined, secret: string): TokenError {
  const clean = (s: string) => (secret === "" ? s : s.split(secret).join("[secret]").split(encodeURIComponent(secret)).join("[secret]"));
  const error = typeof answer?.error === "string" ? clean(answer.error) : "";
  const description = typeof answer?.error_description === "string" ? clean(answer.error_description) : "";
  const body = errorBody(status, text);
  const fromService = body.code !== 0 && body.message !== `HTTP ${status}`;
  const message = fromService ? body.message : `the token request failed (HTTP ${status})${error ? `: ${error}` : ""}${description ? `: ${description}` : ""}`;
  return new TokenError({ status, code: body.code, property: clean(body.property), message: clean(message), dev: clean(body.dev), info: clean(body.info) }, error, description);
}
/** The body of `res` as text, read no further than `limit` bytes: past it, the request is aborted and ResponseTooLargeError thrown. */
async function readText(res: Response, limit: number, controller: AbortController): Promise<string> {
  const tooLarge = () => {
    controller.abort();
    return new ResponseTooLargeError(limit, res.status);
  };
  const declared = Number(res.headers.get("content-length") ?? NaN);
  if (declared > limit) throw tooLarge();
  if (res.body === null) return "";
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    size += value.byteLength;
    if (size > limit) {
      void reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    text += decoder.decode(value, { stream: true });
  }
}

function backoff(retry: Required<RetryOptions>, attempt: number): number {
  const base = Math.min(retry.maxDelayMs, retry.minDelayMs * 2 ** attempt);
  return base / 2 + Math.random() * (base / 2);
}

function errorBody(status: number, text: string): ErrorBody {
  try {
    const body = JSON.parse(text) as Partial<ErrorBody>;
    if (typeof body.code === "number") {
      return { status, code: body.code, property: body.property ?? "", message: body.message ?? `HTTP ${status}`, dev: body.dev ?? "", info: body.info ?? "" };
    }
  } catch {
    /* not the service's error body */
  }
  return { status, code: 0, property: "", message: `HTTP ${status}`, dev: text.slice(0, 500), info: "" };
}
