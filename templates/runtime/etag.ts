/**
 * Conditional requests (CONTRACT §10, RFC 9110 §13): every GET of an instance answers a strong `ETag`;
 * `If-None-Match` with it answers 304; an update or delete whose `If-Match` no longer matches answers 412
 * and writes nothing (a lost update is refused instead of overwriting another client's write).
 *
 * An ETag is `"<state>"`: a digest of the stored instance (its id, times, owner and stored data: what the
 * store holds, so any write that changes the representation changes it, a migration's fill included)
 * together with what its representation depends on besides (the API version and the base URL of its hrefs),
 * and a mark of the media type (`.v`, `.a` for the vendor types; none for application/json): two
 * representations with different bytes never share a tag. A representation shaped by `fields` alone adds a tag
 * of the selection (`"<state>.<selection>"`: its bytes follow from the state and the selection); one shaped by
 * `expand` (expanded instances change without this one) or by a read hook a digest of its bytes (`"<state>.<body>"`).
 * `If-Match` compares the state part only, so the ETag of a shaped read still guards an update of the instance.
 */
import crypto from "node:crypto";
import type { StoredRecord } from "./store.js";

/**
 * The state part of an instance's ETags: 22 base64url characters of SHA-256 (132 bits).
 * @example stateOf(record, 2, "https://api.example.com/v2") → "q3Yc0…"
 */
export function stateOf(record: StoredRecord, version: number, baseUrl: string): string {
  return digest(`${version}\n${baseUrl}\n${JSON.stringify([record.id, record.createdAt, record.modifiedAt, record.owner ?? null, record.data])}`).slice(0, 22);
}

/**
 * SHA-256 of `text` as base64url: Node's one-shot crypto.hash where it has it (20.12 and later; a third
 * cheaper than a Hash object on an instance's few hundred bytes: it runs on every GET), else createHash.
 */
const digest: (text: string) => string =
  typeof (crypto as { hash?: unknown }).hash === "function"
    ? (text) => (crypto as unknown as { hash(algorithm: string, data: string, encoding: "base64url"): string }).hash("sha256", text, "base64url")
    : (text) => crypto.createHash("sha256").update(text).digest("base64url");

/** The ETag mark of the offer at `index` of a resource's offers (application/json, vendor name, vendor alias). */
export function typeMark(index: number): string {
  return index <= 0 ? "" : index === 1 ? ".v" : ".a";
}

/**
 * The ETag of one representation: its state and media type mark, and, for a shaped representation, a digest of its bytes.
 * @example etagOf("q3Yc0…", ".v") === '"q3Yc0….v"'
 */
export function etagOf(state: string, mark: string, body?: string): string {
  return body === undefined ? `"${state}${mark}"` : `"${state}${mark}.${digest(body).slice(0, 16)}"`;
}

/**
 * The ETag part of a `fields` selection (`key`: the selection as the request wrote it, with its version): 16
 * base64url characters, the same length as a body digest. Made once per distinct selection.
 */
export function selectionTag(key: string): string {
  return digest(`fields\n${key}`).slice(0, 16);
}

/** The entity tags of an If-Match or If-None-Match header ("*" alone: any); weak tags keep their W/. Undefined when absent. */
function tagsOf(header: string | string[] | undefined): readonly string[] | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(",") : header;
  const tags: string[] = [];
  for (const m of text.matchAll(/\s*(\*|(?:W\/)?"[^"]*")\s*(?:,|$)/g)) tags.push(m[1]!);
  return tags;
}

/**
 * True when If-None-Match names `etag` (weak comparison, RFC 9110 §13.1.2: W/ ignored) or is `*`: a GET
 * answers 304 then.
 * @example noneMatch('W/"a", "b"', '"b"') === true
 */
export function noneMatch(header: string | string[] | undefined, etag: string): boolean {
  const tags = tagsOf(header);
  if (tags === undefined) return false;
  return tags.some((t) => t === "*" || (t.startsWith("W/") ? t.slice(2) : t) === etag);
}

/**
 * Whether a write's preconditions hold for the current instance of state `state`: If-Match must name a strong
 * ETag of that state (any media type or shape of it) or be `*`; If-None-Match must name none (and not be `*`,
 * since the instance exists). Undefined headers hold.
 * @example preconditionsHold({ "if-match": '"abc.v"' }, "abc") === true
 */
export function preconditionsHold(headers: { readonly "if-match"?: string | string[] | undefined; readonly "if-none-match"?: string | string[] | undefined }, state: string): boolean {
  const stateOfTag = (tag: string) => tag.slice(1, -1).split(".")[0];
  const match = tagsOf(headers["if-match"]);
  if (match !== undefined && !match.some((t) => t === "*" || (!t.startsWith("W/") && stateOfTag(t) === state))) return false;
  const none = tagsOf(headers["if-none-match"]);
  if (none !== undefined && none.some((t) => t === "*" || stateOfTag(t.startsWith("W/") ? t.slice(2) : t) === state)) return false;
  return true;
}
