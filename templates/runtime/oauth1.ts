/**
 * OAuth 1.0a request signatures (RFC 5849 §3.1–3.6), two-legged: the consumer key is an API key's id and the
 * consumer secret its secret; there are no token credentials. Reads the `Authorization: OAuth …` header, builds
 * the signature base string from the method, the URL and the form body, checks the HMAC-SHA256 or HMAC-SHA1
 * signature in constant time, the timestamp against a window, and the nonce against replays.
 */
import crypto from "node:crypto";

/**
 * The parts of a request a signature covers. `url` is absolute, as the client addressed it (scheme, host, port,
 * path, query): the caller passes the service's public base URL's origin + the request path and query.
 */
export interface SignedRequest {
  readonly method: string;
  readonly url: string;
  readonly authorization: string;
  /** Parsed application/x-www-form-urlencoded body parameters, when the body is such a form. */
  readonly form?: ReadonlyArray<readonly [string, string]>;
}

/** What a nonce store answers: true the first time, false for a replay, "full" when it can remember no more. */
export type NonceClaim = boolean | "full";

/**
 * Remembers nonces for the timestamp window: `claim` answers true the first time (consumerKey, nonce, timestamp)
 * is seen, false for a replay, and "full" when it cannot take another without forgetting one that is still live.
 * May be async (a shared store, e.g. Redis `SET key 1 NX EX <2 × window>`).
 */
export interface NonceStore {
  claim(consumerKey: string, nonce: string, timestamp: number): NonceClaim | Promise<NonceClaim>;
}

/** Settings of a MemoryNonces. */
export interface MemoryNoncesOptions {
  /** Seconds a timestamp may be away from the clock; at least verifyOAuth1's window (default 300, the same). */
  readonly windowSeconds?: number;
  /** Most live nonces remembered at once (default 100,000); beyond it, claims answer "full". */
  readonly limit?: number;
  /** Clock in milliseconds (default Date.now). */
  readonly now?: () => number;
}

/** Why a signed request was refused; `dev` is one sentence telling the client what to fix. */
export type OAuth1Failure = {
  readonly ok: false;
  readonly reason: "malformed" | "unsupported" | "unknownKey" | "badSignature" | "stale" | "replayed" | "busy";
  readonly dev: string;
};

/** The result of verifyOAuth1: the consumer key (an API key's id) of a genuine request, or why it was refused. */
export type OAuth1Outcome = { readonly ok: true; readonly consumerKey: string } | OAuth1Failure;

/** Settings of verifyOAuth1. */
export interface VerifyOAuth1Options {
  /** Where nonces are claimed, once the signature is valid. */
  readonly nonces: NonceStore;
  /** Clock in milliseconds (default Date.now). */
  readonly now?: () => number;
  /** Seconds oauth_timestamp may be behind or ahead of the clock (default 300). */
  readonly windowSeconds?: number;
}

/** Default timestamp window, in seconds either side of the clock. */
export const DEFAULT_WINDOW_SECONDS = 300;
/** Longest Authorization header read, in characters (Node gives a header as Latin-1: one byte each). */
export const MAX_HEADER_LENGTH = 8192;
/** Most parameters in the Authorization header. */
export const MAX_HEADER_PARAMETERS = 64;
/** Most query and form parameters together in a signed request. */
export const MAX_SIGNED_PARAMETERS = 1000;
const DEFAULT_NONCE_LIMIT = 100_000;
const REQUIRED = ["oauth_consumer_key", "oauth_signature_method", "oauth_signature", "oauth_timestamp", "oauth_nonce"] as const;
const ALGORITHMS: Readonly<Record<string, string>> = { "HMAC-SHA256": "sha256", "HMAC-SHA1": "sha1" };
/** Signs requests whose key is unknown, so that they cost the same HMAC as the others. */
const DUMMY_SECRET = crypto.randomBytes(32).toString("base64url");
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const TIMESTAMP = /^[0-9]{1,12}$/;

function fail(reason: OAuth1Failure["reason"], dev: string): OAuth1Failure {
  return { ok: false, reason, dev };
}

/** A name or value the client sent, quoted for a dev message and cut short. */
function shown(text: string, max = 64): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

/**
 * Percent-encodes as RFC 5849 §3.6 says: every byte of the UTF-8 form except the unreserved A–Z a–z 0–9 - . _ ~,
 * hex digits in upper case. Throws a URIError on a lone surrogate.
 * @example percentEncode("Ladies + Gentlemen!") → "Ladies%20%2B%20Gentlemen%21"
 */
export function percentEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * True when the Authorization header's scheme is OAuth (case-insensitive), so verifyOAuth1 is the one to read it.
 * @example isOAuth1('OAuth oauth_consumer_key="k", …') → true; isOAuth1("Bearer abc") → false
 */
export function isOAuth1(authorization: string | undefined): boolean {
  return typeof authorization === "string" && /^[ \t]*oauth(?:[ \t]|$)/i.test(authorization);
}

/** RFC 9110 tchar: the characters of a parameter name. */
function isTokenChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || "!#$%&'*+-.^_`|~".includes(String.fromCharCode(c));
}

const isSpace = (c: number) => c === 0x20 || c === 0x09;

/** The header's parameters (names and values percent-decoded, realm left out), or why it cannot be read. */
function parseHeader(header: string): Map<string, string> | OAuth1Failure {
  const syntax = (at: number) =>
    fail("malformed", `The OAuth Authorization header is malformed at character ${at + 1}: write each parameter as name="percent-encoded value", separated by commas.`);
  if (typeof header !== "string" || !isOAuth1(header)) return fail("malformed", 'The Authorization header does not use the OAuth scheme; start it with "OAuth " and the oauth_* parameters.');
  if (header.length > MAX_HEADER_LENGTH) return fail("malformed", `The Authorization header is longer than ${MAX_HEADER_LENGTH} bytes; send only the OAuth protocol parameters in it.`);
  const params = new Map<string, string>();
  const seen = new Set<string>();
  const n = header.length;
  let i = 0;
  while (isSpace(header.charCodeAt(i))) i++;
  i += 5; // "OAuth", as isOAuth1 found it
  while (i < n && isSpace(header.charCodeAt(i))) i++;
  while (i < n) {
    const start = i;
    while (i < n && isTokenChar(header.charCodeAt(i))) i++;
    if (i === start) return syntax(i);
    const rawName = header.slice(start, i);
    if (seen.size >= MAX_HEADER_PARAMETERS) return fail("malformed", `The Authorization header has more than ${MAX_HEADER_PARAMETERS} parameters; send only the OAuth protocol parameters in it.`);
    while (i < n && isSpace(header.charCodeAt(i))) i++;
    if (header.charCodeAt(i) !== 0x3d /* = */) return syntax(i);
    i++;
    while (i < n && isSpace(header.charCodeAt(i))) i++;
    if (header.charCodeAt(i) !== 0x22 /* " */) return fail("malformed", `The value of ${shown(rawName)} in the Authorization header is not quoted; write it as ${rawName}="value".`);
    i++;
    let value = "";
    let from = i;
    for (;;) {
      if (i >= n) return fail("malformed", `The value of ${shown(rawName)} in the Authorization header has no closing quote; end it with ".`);
      const c = header.charCodeAt(i);
      if (c === 0x22) break;
      if (c === 0x5c /* \ */) {
        value += header.slice(from, i);
        from = ++i; // a quoted-pair: the next character as itself
      }
      i++;
    }
    value += header.slice(from, i);
    i++;
    let name: string;
    try {
      name = decodeURIComponent(rawName);
      if (name !== "realm") value = decodeURIComponent(value);
    } catch {
      return fail("malformed", `The parameter ${shown(rawName)} in the Authorization header is not valid percent-encoding; percent-encode names and values as UTF-8 (RFC 5849 §3.6).`);
    }
    if (seen.has(name)) return fail("malformed", `The Authorization header gives ${shown(name)} more than once; send each parameter once.`);
    seen.add(name);
    if (name !== "realm") params.set(name, value);
    while (i < n && isSpace(header.charCodeAt(i))) i++;
    if (i === n) break;
    if (header.charCodeAt(i) !== 0x2c /* , */) return syntax(i);
    i++;
    while (i < n && isSpace(header.charCodeAt(i))) i++;
    if (i === n) return syntax(i);
  }
  return params;
}

/** The base string URI of an absolute http(s) URL (scheme and host lower-cased, default port left out, path as sent) and its raw query. */
function splitUrl(url: string): { readonly uri: string; readonly query: string } | undefined {
  const sep = url.indexOf("://");
  if (sep <= 0) return undefined;
  let end = sep + 3;
  while (end < url.length && !"/?#".includes(url.charAt(end))) end++;
  let origin: URL;
  try {
    origin = new URL(url.slice(0, end));
  } catch {
    return undefined;
  }
  if ((origin.protocol !== "http:" && origin.protocol !== "https:") || origin.username !== "" || origin.password !== "") return undefined;
  const rest = url.slice(end);
  const hash = rest.indexOf("#");
  const target = hash < 0 ? rest : rest.slice(0, hash);
  const q = target.indexOf("?");
  const path = q < 0 ? target : target.slice(0, q);
  // URL lower-cases scheme and host and drops a default port (80 for http, 443 for https).
  return { uri: `${origin.protocol}//${origin.host}${path === "" ? "/" : path}`, query: q < 0 ? "" : target.slice(q + 1) };
}

/** Adds the pairs of an application/x-www-form-urlencoded string (`+` is a space); false when it is not valid percent-encoding. */
function addFormPairs(text: string, into: Array<readonly [string, string]>): boolean {
  const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));
  try {
    for (const part of text.split("&")) {
      if (part === "") continue;
      const eq = part.indexOf("=");
      into.push(eq < 0 ? [decode(part), ""] : [decode(part.slice(0, eq)), decode(part.slice(eq + 1))]);
    }
  } catch {
    return false;
  }
  return true;
}

/** A request read for signing: its protocol parameters, base string and base string URI. */
interface ReadRequest {
  readonly protocol: ReadonlyMap<string, string>;
  readonly baseString: string;
  readonly uri: string;
}

/** Reads the header, URL and form of a request and builds its signature base string (RFC 5849 §3.4.1). */
function readRequest(request: SignedRequest): ReadRequest | OAuth1Failure {
  const protocol = parseHeader(request.authorization);
  if (!(protocol instanceof Map)) return protocol;
  const split = splitUrl(request.url);
  if (split === undefined) return fail("malformed", "The request URL is not an absolute http or https URL; the service's public base URL may be misconfigured.");
  const signed: Array<readonly [string, string]> = [];
  if (!addFormPairs(split.query, signed)) return fail("malformed", "The query string is not valid percent-encoding; percent-encode its names and values as UTF-8.");
  signed.push(...(request.form ?? []));
  if (signed.length > MAX_SIGNED_PARAMETERS) return fail("malformed", `The request has more than ${MAX_SIGNED_PARAMETERS} query and form parameters; send fewer.`);
  const inBody = signed.find(([name]) => name.startsWith("oauth_"));
  if (inBody) return fail("malformed", `The query or form carries the protocol parameter ${shown(inBody[0])}; send OAuth protocol parameters only in the Authorization header.`);
  for (const [name, value] of protocol) if (name !== "oauth_signature") signed.push([name, value]);
  let encoded: Array<readonly [string, string]>;
  try {
    encoded = signed.map(([name, value]) => [percentEncode(name), percentEncode(value)] as const);
  } catch {
    return fail("malformed", "A query or form parameter is not valid Unicode text; send names and values as UTF-8.");
  }
  // Sorted by name, then value: the encoded strings are ASCII, so string order is byte order.
  encoded.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  const normalized = encoded.map(([name, value]) => `${name}=${value}`).join("&");
  const baseString = `${percentEncode(request.method.toUpperCase())}&${percentEncode(split.uri)}&${percentEncode(normalized)}`;
  return { protocol, baseString, uri: split.uri };
}

/**
 * The signature base string of a request (RFC 5849 §3.4.1): the method, the base string URI and the normalized
 * query, form and Authorization parameters (realm and oauth_signature left out). Token parameters are read as
 * any other, so RFC examples reproduce. Throws an Error with the dev sentence when the request cannot be read.
 * @example signatureBaseString({ method: "GET", url: "https://Example.com:443/a?b=c", authorization: 'OAuth oauth_nonce="n"' })
 *   → "GET&https%3A%2F%2Fexample.com%2Fa&b%3Dc%26oauth_nonce%3Dn"
 */
export function signatureBaseString(request: SignedRequest): string {
  const read = readRequest(request);
  if ("ok" in read) throw new Error(read.dev);
  return read.baseString;
}

/** The bytes of a base64 signature, or undefined when it is not base64. */
function base64Bytes(text: string): Buffer | undefined {
  return text.length % 4 === 0 && BASE64.test(text) ? Buffer.from(text, "base64") : undefined;
}

/**
 * Verifies a two-legged OAuth 1.0a request: the header's syntax, the signature method (HMAC-SHA256 or HMAC-SHA1),
 * no token, the timestamp within the window, the signature with the consumer key's secret (`secretOf`; undefined
 * for an unknown key), then the nonce: claimed only once the signature is valid, so nobody can burn another's.
 * @example
 *   const outcome = await verifyOAuth1({ method: req.method, url: origin + req.url, authorization }, (id) => secrets.get(id), { nonces });
 *   if (!outcome.ok) reply.code(outcome.reason === "busy" ? 503 : 401).send({ dev: outcome.dev });
 */
export async function verifyOAuth1(request: SignedRequest, secretOf: (consumerKey: string) => string | undefined, options: VerifyOAuth1Options): Promise<OAuth1Outcome> {
  const read = readRequest(request);
  if ("ok" in read) return read;
  const p = read.protocol;
  const missing = REQUIRED.filter((name) => !p.get(name));
  if (missing.length > 0) {
    const list = missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(", ")} and ${missing[missing.length - 1]}`;
    return fail("malformed", `The Authorization header lacks a value for ${list}; send ${REQUIRED.join(", ")} with every request.`);
  }
  const consumerKey = p.get("oauth_consumer_key")!;
  const method = p.get("oauth_signature_method")!;
  const signature = p.get("oauth_signature")!;
  const nonce = p.get("oauth_nonce")!;
  const stamp = p.get("oauth_timestamp")!;
  if (!TIMESTAMP.test(stamp)) return fail("malformed", "The oauth_timestamp is not a whole number of seconds; send the current Unix time in seconds, e.g. 1700000000.");
  const version = p.get("oauth_version");
  if (version !== undefined && version !== "1.0") return fail("unsupported", `This service speaks OAuth 1.0 only, not oauth_version ${shown(version)}; send oauth_version="1.0" or leave it out.`);
  const algorithm = Object.hasOwn(ALGORITHMS, method) ? ALGORITHMS[method] : undefined;
  if (algorithm === undefined) return fail("unsupported", `The signature method ${shown(method)} is not supported; sign with HMAC-SHA256 or HMAC-SHA1.`);
  if (p.get("oauth_token")) return fail("unsupported", "This service takes two-legged OAuth 1.0a only; sign with the API key's id and secret alone and leave oauth_token out or empty.");
  if (p.has("oauth_body_hash")) return fail("unsupported", "This service does not check oauth_body_hash; sign the request without it.");

  const window = options.windowSeconds ?? DEFAULT_WINDOW_SECONDS;
  const timestamp = Number(stamp);
  const skew = timestamp - (options.now ?? Date.now)() / 1000;
  if (!(Math.abs(skew) <= window)) {
    return fail("stale", `The oauth_timestamp is ${Math.round(Math.abs(skew))} seconds ${skew < 0 ? "behind" : "ahead of"} the service's clock, outside its ${window}-second window; sign each request with the current Unix time in seconds.`);
  }

  const secret = secretOf(consumerKey);
  // An unknown key costs the same HMAC and comparison as a known one, so timing does not tell ids apart.
  const expected = crypto.createHmac(algorithm, `${percentEncode(secret ?? DUMMY_SECRET)}&`).update(read.baseString, "utf8").digest();
  const given = base64Bytes(signature);
  const same = crypto.timingSafeEqual(expected, given !== undefined && given.length === expected.length ? given : Buffer.alloc(expected.length));
  if (secret === undefined) return fail("unknownKey", "The oauth_consumer_key is not the id of a known API key; sign with an existing key's id and secret.");
  if (given === undefined) return fail("badSignature", "The oauth_signature is not base64; send the HMAC digest base64-encoded, then percent-encoded.");
  if (!same || given.length !== expected.length) {
    return fail("badSignature", `The oauth_signature does not match the request; sign the RFC 5849 §3.4 base string of ${percentEncode(request.method.toUpperCase())} ${shown(read.uri, 200)} with its query, form and oauth_* parameters, keyed with the key's OAuth 1.0a signing secret and "&".`);
  }

  const claim = await options.nonces.claim(consumerKey, nonce, timestamp);
  if (claim === "full") return fail("busy", `The service has more signed requests within its ${window}-second window than it can remember nonces for; retry in a few seconds.`);
  if (claim !== true) return fail("replayed", "This oauth_nonce was already used with this key and timestamp; send a new random nonce with every request.");
  return { ok: true, consumerKey };
}

/**
 * Nonces in memory, for one process: each (consumer key, nonce, timestamp) is kept until its timestamp is more
 * than the window in the past, when verifyOAuth1 refuses the timestamp itself, so dropping it never lets a
 * replay through. A claim whose timestamp is already that old is refused (false), not remembered. When `limit`
 * live nonces are held, new claims answer "full" (verifyOAuth1: "busy") rather than forget a live one.
 * @example const nonces = new MemoryNonces({ windowSeconds: 300, limit: 100_000 });
 */
export class MemoryNonces implements NonceStore {
  private readonly seen = new Set<string>();
  /** Min-heap of the nonces by expiry (milliseconds), to drop the expired ones in O(log n) each. */
  private readonly heap: Array<{ readonly expires: number; readonly id: string }> = [];
  private readonly window: number;
  private readonly limit: number;
  private readonly now: () => number;

  constructor(options: MemoryNoncesOptions = {}) {
    this.window = options.windowSeconds ?? DEFAULT_WINDOW_SECONDS;
    this.limit = Math.max(0, options.limit ?? DEFAULT_NONCE_LIMIT);
    this.now = options.now ?? Date.now;
  }

  /** Live nonces held now. */
  get size(): number {
    this.expire(this.now());
    return this.seen.size;
  }

  /** True the first time (consumerKey, nonce, timestamp) is claimed, false for a replay or an expired timestamp, "full" at the limit. */
  claim(consumerKey: string, nonce: string, timestamp: number): NonceClaim {
    const now = this.now();
    this.expire(now);
    const expires = (timestamp + this.window) * 1000;
    if (!(expires >= now)) return false;
    // Lengths first, so that no two triples share an id.
    const id = `${consumerKey.length}:${consumerKey}${nonce.length}:${nonce}${timestamp}`;
    if (this.seen.has(id)) return false;
    if (this.seen.size >= this.limit) return "full";
    this.seen.add(id);
    this.push({ expires, id });
    return true;
  }

  private expire(now: number): void {
    while (this.heap.length > 0 && this.heap[0]!.expires < now) this.seen.delete(this.pop().id);
  }

  private push(entry: { readonly expires: number; readonly id: string }): void {
    const h = this.heap;
    let i = h.push(entry) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.expires <= entry.expires) break;
      h[i] = h[parent]!;
      i = parent;
    }
    h[i] = entry;
  }

  private pop(): { readonly expires: number; readonly id: string } {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= h.length) break;
        const c = l + 1 < h.length && h[l + 1]!.expires < h[l]!.expires ? l + 1 : l;
        if (h[c]!.expires >= last.expires) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }
}
