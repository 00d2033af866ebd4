/**
 * Limits of the service's HTTP layer: how long a client may take to send its headers and its whole
 * request, how long an idle keep-alive connection stays open, and how long a shutdown waits for open
 * connections. Safe by default; each is overridable through the environment.
 */
import type { ServerOptions } from "node:http";

/** Limits of the HTTP layer, in milliseconds. */
export interface HttpLimits {
  /** The whole request, headers and body, must arrive within this (REQUEST_TIMEOUT_MS); else 408. */
  readonly requestTimeoutMs: number;
  /** The headers must arrive within this (HEADERS_TIMEOUT_MS), at most requestTimeoutMs; else 408. */
  readonly headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this (KEEP_ALIVE_TIMEOUT_MS). */
  readonly keepAliveTimeoutMs: number;
  /** On SIGTERM or SIGINT, connections still open after this are cut (SHUTDOWN_TIMEOUT_MS). */
  readonly shutdownTimeoutMs: number;
}

/**
 * The defaults: 30 s for a request, 10 s for its headers, 72 s of keep-alive (longer than the 60 s idle
 * timeout of common load balancers, so that they never reuse a connection the service is closing), and
 * 10 s for a shutdown.
 */
export const DEFAULT_HTTP_LIMITS: HttpLimits = Object.freeze({
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 72_000,
  shutdownTimeoutMs: 10_000,
});

const VARIABLES: Readonly<Record<keyof HttpLimits, string>> = {
  requestTimeoutMs: "REQUEST_TIMEOUT_MS",
  headersTimeoutMs: "HEADERS_TIMEOUT_MS",
  keepAliveTimeoutMs: "KEEP_ALIVE_TIMEOUT_MS",
  shutdownTimeoutMs: "SHUTDOWN_TIMEOUT_MS",
};

/**
 * The limits `env` sets, the defaults for the rest; throws an Error naming the variable of a bad value.
 * @example httpLimitsFrom({ REQUEST_TIMEOUT_MS: "60000" }).requestTimeoutMs === 60000
 */
export function httpLimitsFrom(env: NodeJS.ProcessEnv): HttpLimits {
  const out: Record<string, number> = {};
  for (const [name, variable] of Object.entries(VARIABLES) as [keyof HttpLimits, string][]) {
    const text = env[variable];
    if (text === undefined || text === "") {
      out[name] = DEFAULT_HTTP_LIMITS[name];
      continue;
    }
    const value = Number(text);
    if (!/^\d{1,10}$/.test(text) || value < 1) throw new Error(`${variable} must be a whole number of milliseconds (1 or more), not "${text}"`);
    out[name] = value;
  }
  const limits = out as unknown as HttpLimits;
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new Error(`HEADERS_TIMEOUT_MS (${limits.headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs})`);
  }
  return limits;
}

/**
 * Node's server options for `limits`. Node checks the header and request timeouts on a timer (every 30 s
 * by default, so a 10 s limit could take 40 s to apply): here every quarter of the shorter timeout, at most
 * once a second. Duplicate headers are joined with ", ", so that two Authorization headers make one
 * malformed value instead of the first silently winning.
 */
export function serverOptionsOf(limits: HttpLimits): ServerOptions {
  const shorter = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout: limits.headersTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(shorter / 4))),
    joinDuplicateHeaders: true,
  };
}
