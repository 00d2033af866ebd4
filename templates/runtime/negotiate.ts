/**
 * Content negotiation (V1, V2): reads the Accept header with q-values and wildcards, picks one of the
 * representations the service offers, and tells a request for an unknown API version apart from a
 * request for a format the service does not speak. Also decides whether a request body is JSON.
 */

/** One media range of an Accept header. */
export interface AcceptRange {
  /** Lower-cased type, or "*". */
  readonly type: string;
  /** Lower-cased subtype, or "*". */
  readonly subtype: string;
  /** Parameters other than q: names lower-cased, values unquoted (first occurrence wins); a null-prototype object. */
  readonly params: Record<string, string>;
  /** Weight in 0..1 (1 when absent; values outside the range are clamped). */
  readonly q: number;
}

/** The service's vendor token and current version, e.g. { vendor: "acme", version: 1 }. */
export interface NegotiationContext {
  readonly vendor: string;
  readonly version: number;
}

export type NegotiationResult =
  | { readonly ok: true; readonly type: string }
  | { readonly ok: false; readonly reason: "notAcceptable" | "unknownVersion" };

/** Media types every JSON endpoint accepts as a request body. */
export const JSON_BODY_TYPES: readonly string[] = ["application/json", "application/merge-patch+json"];

/** RFC 9110 token characters. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/i;
const Q_VALUE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;
const VERSION_VALUE = /^v?(\d{1,9})$/i;
const VENDOR_SHAPES = [
  /^application\/vnd\.([a-z0-9][a-z0-9-]*)\.v(\d{1,9})\.([a-z0-9][a-z0-9.-]*)\+json$/,
  /^application\/([a-z0-9][a-z0-9-]*)\.v(\d{1,9})\.([a-z0-9][a-z0-9.-]*)\.json$/,
];

/**
 * Parses an Accept header into its media ranges in header order, skipping malformed entries.
 * @example parseAccept("text/*;q=0.5, application/json") → [{ type: "text", subtype: "*", params: {}, q: 0.5 }, { type: "application", subtype: "json", params: {}, q: 1 }]
 */
export function parseAccept(header: string | undefined): AcceptRange[] {
  if (header === undefined) return [];
  const out: AcceptRange[] = [];
  for (const entry of splitUnquoted(header, ",")) {
    const range = parseRange(entry);
    if (range !== undefined) out.push(range);
  }
  return out;
}

/**
 * Picks the offer (given in server preference order) that the Accept header weighs highest, or says why none fits.
 * @example negotiate("application/vnd.acme.v2.account+json", ["application/json", "application/vnd.acme.v1.account+json"], { vendor: "acme", version: 1 }) → { ok: false, reason: "unknownVersion" }
 */
export function negotiate(accept: string | undefined, offers: readonly string[], ctx: NegotiationContext): NegotiationResult {
  const ranges = parseAccept(accept);
  if (ranges.length === 0) {
    // No Accept, an empty one, or one with nothing readable in it: anything goes (RFC 9110 12.5.1).
    return offers[0] === undefined ? { ok: false, reason: "notAcceptable" } : { ok: true, type: offers[0] };
  }
  let best: { type: string; q: number; specificity: number } | undefined;
  for (const offer of offers) {
    const parsed = parseOffer(offer, ctx);
    if (parsed === undefined) continue;
    const weight = weigh(parsed, ranges);
    if (weight === undefined || weight.q <= 0) continue;
    // Higher q wins; then the more specific deciding range (an explicit type beats a wildcard);
    // then server preference, i.e. the earlier offer.
    if (best === undefined || weight.q > best.q || (weight.q === best.q && weight.specificity > best.specificity)) {
      best = { type: offer, ...weight };
    }
  }
  if (best !== undefined) return { ok: true, type: best.type };
  const offered = offers.map((o) => parseOffer(o, ctx)).filter((o): o is ParsedOffer => o !== undefined);
  return { ok: false, reason: ranges.some((r) => asksForOtherVersion(r, offered, ctx)) ? "unknownVersion" : "notAcceptable" };
}

/** The versions a service serves (CONTRACT §7): its vendor token, the current version, and every version served. */
export interface VersionContext {
  readonly vendor: string;
  readonly current: number;
  /** Every version served, the current one included. */
  readonly served: readonly number[];
}

export type VersionResult =
  | { readonly ok: true; readonly version: number }
  | { readonly ok: false; readonly reason: "unknownVersion"; readonly named: number; readonly path: number | undefined };

/**
 * The API version a request asks for (CONTRACT §7). Accept names one by a vendor type of the service's vendor
 * (either shape) or by a `version` parameter (`application/json; version=2`); of several, the served one the
 * header weighs highest (ties: the first). A path that names a version (a `/v<N>` prefix: `pathVersion`) decides
 * when Accept names none, and must agree with Accept when it does. Nothing named: the current version. A
 * version that is not served, or an Accept that names only versions other than the path's, is unknownVersion.
 * @example requestVersion("application/vnd.acme.v1.book+json", undefined, { vendor: "acme", current: 2, served: [1, 2] }) → { ok: true, version: 1 }
 */
export function requestVersion(accept: string | undefined, pathVersion: number | undefined, ctx: VersionContext): VersionResult {
  const vendor = ctx.vendor.toLowerCase();
  const named: { version: number; q: number }[] = [];
  for (const range of parseAccept(accept)) {
    if (range.q <= 0) continue;
    const param = range.params["version"];
    const ofVendor = vendorOf(range.type, range.subtype);
    const version = param !== undefined ? versionParam(param) : ofVendor !== undefined && ofVendor.vendor === vendor ? ofVendor.version : undefined;
    if (version !== undefined && Number.isFinite(version)) named.push({ version, q: range.q });
  }
  const fallback = pathVersion ?? ctx.current;
  if (named.length === 0) {
    return ctx.served.includes(fallback) ? { ok: true, version: fallback } : { ok: false, reason: "unknownVersion", named: fallback, path: pathVersion };
  }
  const usable = named.filter((n) => ctx.served.includes(n.version) && (pathVersion === undefined || n.version === pathVersion));
  if (usable.length === 0) return { ok: false, reason: "unknownVersion", named: named[0]!.version, path: pathVersion };
  const best = usable.reduce((a, b) => (b.q > a.q ? b : a));
  return { ok: true, version: best.version };
}

/**
 * Tells whether a request's Content-Type (parameters ignored, any case) is JSON, JSON merge patch or one of `allowed`.
 * @example isJsonContentType("Application/JSON; charset=utf-8", []) === true
 */
export function isJsonContentType(header: string | undefined, allowed: readonly string[]): boolean {
  if (header === undefined) return false;
  const type = essence(header);
  if (!isMediaType(type)) return false;
  return JSON_BODY_TYPES.includes(type) || allowed.some((a) => essence(a) === type);
}

interface ParsedOffer {
  readonly type: string;
  readonly subtype: string;
  /** The offer's version parameter, else the version in its vendor type, else the service's version. */
  readonly version: number;
}

/** The media type without parameters, trimmed and lower-cased. */
function essence(mediaType: string): string {
  const semi = mediaType.indexOf(";");
  return (semi < 0 ? mediaType : mediaType.slice(0, semi)).trim().toLowerCase();
}

function isMediaType(type: string): boolean {
  const slash = type.indexOf("/");
  return slash > 0 && TOKEN.test(type.slice(0, slash)) && TOKEN.test(type.slice(slash + 1));
}

/**
 * Splits at `sep` outside double-quoted strings (a backslash escapes the next character inside them).
 * A quote left open at the end is taken as an ordinary character, as are all quotes after it, so one
 * broken entry does not swallow the rest (and the scan stays linear).
 */
function splitUnquoted(text: string, sep: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let openedAt = -1;
  let quotes = true;
  for (let i = 0; i <= text.length; i++) {
    if (i === text.length) {
      if (openedAt < 0) break;
      i = openedAt;
      openedAt = -1;
      quotes = false;
      continue;
    }
    const c = text[i];
    if (openedAt >= 0) {
      if (c === "\\") i++;
      else if (c === '"') openedAt = -1;
    } else if (c === '"' && quotes) {
      openedAt = i;
    } else if (c === sep) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** One media range with its parameters, or undefined when it is malformed. */
function parseRange(entry: string): AcceptRange | undefined {
  const [head = "", ...rest] = splitUnquoted(entry, ";");
  const range = head.trim().toLowerCase();
  let type: string;
  let subtype: string;
  if (range === "*") {
    // Old clients (Java's URLConnection among them) send a bare "*" for "*/*".
    type = "*";
    subtype = "*";
  } else {
    if (!isMediaType(range)) return undefined;
    const slash = range.indexOf("/");
    type = range.slice(0, slash);
    subtype = range.slice(slash + 1);
    if (type === "*" && subtype !== "*") return undefined;
  }
  const params: Record<string, string> = Object.create(null) as Record<string, string>;
  let q: number | undefined;
  for (const part of rest) {
    const text = part.trim();
    if (text === "") continue; // "text/html;" or ";;"
    const eq = text.indexOf("=");
    if (eq < 0) return undefined;
    const name = text.slice(0, eq).trim().toLowerCase();
    const value = paramValue(text.slice(eq + 1).trim());
    if (!TOKEN.test(name) || value === undefined) return undefined;
    if (name === "q") {
      if (q !== undefined) continue;
      if (!Q_VALUE.test(value)) return undefined;
      q = Math.min(1, Math.max(0, Number(value)));
    } else if (!(name in params)) {
      params[name] = value;
    }
  }
  return { type, subtype, params, q: q ?? 1 };
}

/** A parameter value, unquoted; undefined when it is empty, an unterminated quote, or has stray quotes or blanks. */
function paramValue(raw: string): string | undefined {
  if (!raw.startsWith('"')) return raw !== "" && !/[\s"\\]/.test(raw) ? raw : undefined;
  let value = "";
  for (let i = 1; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === "\\") {
      const next = raw[i + 1];
      if (next === undefined) return undefined;
      value += next;
      i++;
    } else if (c === '"') {
      return i === raw.length - 1 ? value : undefined;
    } else {
      value += c;
    }
  }
  return undefined;
}

/** The version a version parameter names; NaN when it names none. */
function versionParam(value: string): number {
  const m = VERSION_VALUE.exec(value.trim());
  return m ? Number(m[1]) : Number.NaN;
}

/** Vendor token and version of a vendor media type in either shape (lower-cased input). */
function vendorOf(type: string, subtype: string): { vendor: string; version: number } | undefined {
  const full = `${type}/${subtype}`;
  for (const shape of VENDOR_SHAPES) {
    const m = shape.exec(full);
    if (m) return { vendor: m[1]!, version: Number(m[2]) };
  }
  return undefined;
}

function parseOffer(offer: string, ctx: NegotiationContext): ParsedOffer | undefined {
  const range = parseRange(offer);
  if (range === undefined || range.type === "*" || range.subtype === "*") return undefined;
  const param = range.params["version"];
  const version = param !== undefined ? versionParam(param) : (vendorOf(range.type, range.subtype)?.version ?? ctx.version);
  return { type: range.type, subtype: range.subtype, version };
}

/**
 * How specific a range is for an offer it matches (2 type/subtype, 1 type/*, 0 wildcard; doubled, plus one
 * for a version parameter), or -1 when it does not match. Parameters other than version are ignored.
 */
function specificityFor(range: AcceptRange, offer: ParsedOffer): number {
  let level: number;
  if (range.type === "*") level = 0;
  else if (range.type !== offer.type) return -1;
  else if (range.subtype === "*") level = 1;
  else if (range.subtype !== offer.subtype) return -1;
  else level = 2;
  const version = range.params["version"];
  if (version === undefined) return level * 2;
  return versionParam(version) === offer.version ? level * 2 + 1 : -1;
}

/** The q of the most specific range that matches the offer (the highest q among equally specific ones). */
function weigh(offer: ParsedOffer, ranges: readonly AcceptRange[]): { q: number; specificity: number } | undefined {
  let best: { q: number; specificity: number } | undefined;
  for (const range of ranges) {
    const specificity = specificityFor(range, offer);
    if (specificity < 0) continue;
    if (best === undefined || specificity > best.specificity || (specificity === best.specificity && range.q > best.q)) {
      best = { q: range.q, specificity };
    }
  }
  return best;
}

/**
 * Whether an acceptable range asks for a version the service does not have: a vendor type of the service's
 * vendor with another v<N>, or a version parameter other than the current version on a vendor type of the
 * service's vendor or on a range that matches an offer apart from its version.
 */
function asksForOtherVersion(range: AcceptRange, offers: readonly ParsedOffer[], ctx: NegotiationContext): boolean {
  if (range.q <= 0) return false;
  const vendor = vendorOf(range.type, range.subtype);
  const ours = vendor !== undefined && vendor.vendor === ctx.vendor.toLowerCase();
  if (ours && vendor.version !== ctx.version) return true;
  const param = range.params["version"];
  if (param === undefined || versionParam(param) === ctx.version) return false;
  if (ours) return true;
  const unversioned: AcceptRange = { ...range, params: Object.create(null) as Record<string, string> };
  return offers.some((o) => specificityFor(unversioned, o) >= 0);
}
