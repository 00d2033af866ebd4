/**
 * The client's transport: fetch with credentials, version-pinned Accept, per-call AbortSignal and
 * timeout, retries with backoff for idempotent requests only, ApiError for every non-2xx answer, and a
 * cap on the size of an answer (ResponseTooLargeError). No dependency beyond the platform's fetch,
 * AbortController, TextDecoder and btoa/Buffer.
 */

/** Credentials: an API key secret as a Bearer token, or key id and secret as Basic (over HTTPS only). */
export type Auth = { bearer: string } | { basic: { id: string; secret: string } };

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
}

/** Options of one call. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  retry?: RetryOptions | boolean;
  /** Overrides ClientOptions.maxResponseBytes for this call. */
  maxResponseBytes?: number;
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

/** A request as the generated functions describe it. */
export interface RequestSpec {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, string | number | boolean | readonly string[] | undefined>;
  body?: unknown;
  contentType?: string;
  accept: string;
}

const IDEMPOTENT = new Set(["GET", "PUT", "DELETE"]);

function authorization(auth: Auth | undefined): Record<string, string> {
  if (!auth) return {};
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

/** Sends one request (with retries when allowed) and returns the parsed JSON body; throws ApiError. */
export async function send<T>(options: ClientOptions, spec: RequestSpec, call: CallOptions = {}): Promise<T> {
  const doFetch = options.fetch ?? fetch;
  const retry = IDEMPOTENT.has(spec.method) ? retryOptions(call.retry ?? options.retry) : undefined;
  const timeoutMs = call.timeoutMs ?? options.timeoutMs;
  const maxBytes = call.maxResponseBytes ?? options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const headers: Record<string, string> = { accept: spec.accept, ...authorization(options.auth), ...options.headers };
  if (spec.body !== undefined) headers["content-type"] = spec.contentType ?? "application/json";
  for (let attempt = 0; ; attempt++) {
    const controller = new AbortController();
    const onAbort = () => controller.abort(call.signal?.reason);
    call.signal?.addEventListener("abort", onAbort, { once: true });
    if (call.signal?.aborted) controller.abort(call.signal.reason);
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => controller.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    try {
      const res = await doFetch(urlOf(options.baseUrl, spec), {
        method: spec.method,
        headers,
        signal: controller.signal,
        ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
      });
      const text = await readText(res, maxBytes, controller);
      if (res.ok) return (text ? JSON.parse(text) : undefined) as T;
      if (retry && attempt < retry.retries && (res.status === 429 || res.status >= 500)) {
        await sleep(backoff(retry, attempt), call.signal);
        continue;
      }
      throw new ApiError(errorBody(res.status, text));
    } catch (error) {
      if (error instanceof ApiError || error instanceof ResponseTooLargeError || call.signal?.aborted || !retry || attempt >= retry.retries) throw error;
      await sleep(backoff(retry, attempt), call.signal);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      call.signal?.removeEventListener("abort", onAbort);
    }
  }
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
