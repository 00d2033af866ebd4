/** Hrefs of instances and collections, and the links written in request bodies ({ meta: { href } }). */
import { describeIdForm, isIdOf, mayName } from "./ids.js";
import type { ResourceSpec } from "./spec.js";

/**
 * Ids that encodeURIComponent returns unchanged (a subset of what it leaves alone), such as the UUIDs
 * the service makes. Testing costs half of encoding, and a page of a collection makes two hrefs per item.
 */
const UNENCODED = /^[\w.~-]*$/;

/**
 * The absolute href of an instance or collection.
 * @example hrefOf("https://api.example.com/v1", "books", "42") === "https://api.example.com/v1/books/42"
 */
export function hrefOf(baseUrl: string, collection: string, id?: string): string {
  if (id === undefined) return `${baseUrl}/${collection}`;
  return `${baseUrl}/${collection}/${UNENCODED.test(id) ? id : encodeURIComponent(id)}`;
}

/** What an href written in a body names: the id of an instance of the collection, or why it names none. */
export type HrefMatch = { readonly id: string; readonly problem?: undefined } | { readonly id?: undefined; readonly problem: string };

/**
 * The id an href names in `collection` of the service at `baseUrl`, or why it names none. The href is an
 * absolute URL, or a reference resolved against the base URL with a trailing slash (`/v1/books/42` and
 * `books/42` both name books/42 under `https://api.example.com/v1`); either way it must stay under the base
 * URL: same scheme, host and port (CONTRACT §6: a link names an instance of this service), the base path,
 * then the collection and one id, with no query, fragment or credentials. A trailing slash is ignored.
 * @example matchHref("https://api.example.com/v1/books/42", "https://api.example.com/v1", "books") → { id: "42" }
 * @example matchHref("https://elsewhere.example/v1/books/42", "https://api.example.com/v1", "books").problem → "is on another host: …"
 */
export function matchHref(href: unknown, baseUrl: string, collection: string): HrefMatch {
  if (typeof href !== "string") return { problem: "is not a string" };
  const base = baseOf(baseUrl);
  // The common case, an href exactly as the service writes it (hrefOf), is read without parsing a URL.
  if (href.startsWith(base.withSlash) && href.startsWith(`${collection}/`, base.withSlash.length)) {
    const rest = href.slice(base.withSlash.length + collection.length + 1);
    if (UNENCODED.test(rest) && rest !== "" && rest !== "." && rest !== "..") return { id: rest };
  }
  let url: URL;
  try {
    url = new URL(href, base.withSlash);
  } catch {
    return { problem: "is not a URL" };
  }
  if (url.origin !== base.origin) return { problem: `is on another host: links name instances of this service, under ${baseUrl}` };
  if (url.username !== "" || url.password !== "") return { problem: "carries credentials; write the href as the service gives it" };
  if (url.search !== "" || url.hash !== "" || /[?#]/.test(href)) return { problem: "has a query or a fragment; write the href as the service gives it" };
  const prefix = `${base.path}/${collection}/`;
  if (!url.pathname.startsWith(prefix)) {
    return url.pathname.startsWith(`${base.path}/`)
      ? { problem: `is not the href of ${collection === "" ? "an instance" : `an instance of ${collection}`} (${baseUrl}/${collection}/<id>)` }
      : { problem: `is not under this service's base URL ${baseUrl}` };
  }
  const rest = url.pathname.slice(prefix.length).replace(/\/+$/, "");
  if (rest === "" || rest.includes("/")) return { problem: `is not the href of an instance of ${collection} (${baseUrl}/${collection}/<id>)` };
  try {
    return { id: decodeURIComponent(rest) };
  } catch {
    return { problem: "is not validly percent-encoded" };
  }
}

/**
 * matchHref for a link to an instance of `target`: an href whose id the store may not be asked for (see
 * mayName: "042" of a sequence) names no instance.
 * @example matchLink(".../orders/042", base, orders).problem → 'names no existing order (the ids of orders are integers from 1, …)'
 */
export function matchLink(href: unknown, baseUrl: string, target: ResourceSpec): HrefMatch {
  const match = matchHref(href, baseUrl, target.collection);
  if (match.id === undefined || mayName(target.idForm, match.id)) return match;
  return { problem: noInstance(target, match.id) };
}

/**
 * Why a link's id names nothing, in words: no instance has it, and when it is not of the target's form
 * (x-id), what its ids look like.
 * @example noInstance(customers, "cus_nope") === 'names no existing customer (the ids of customers are "cus_" and 22 letters and digits)'
 */
export function noInstance(target: ResourceSpec, id: string): string {
  const form = isIdOf(target.idForm, id) ? "" : ` (the ids of ${target.collection} are ${describeIdForm(target.idForm)})`;
  return `names no existing ${target.name}${form}`;
}

/**
 * The id an href names in `collection`, or undefined when it names none (see matchHref).
 * @example idFromHref("https://api.example.com/v1/books/42", "https://api.example.com/v1", "books") === "42"
 */
export function idFromHref(href: unknown, baseUrl: string, collection: string): string | undefined {
  return matchHref(href, baseUrl, collection).id;
}

/** A base URL parsed once (a service has one or two): its origin, its path without a trailing slash, and itself with one. */
function baseOf(baseUrl: string): { readonly origin: string; readonly path: string; readonly withSlash: string } {
  let base = bases.get(baseUrl);
  if (base === undefined) {
    const url = new URL(baseUrl + "/");
    base = { origin: url.origin, path: url.pathname.replace(/\/+$/, ""), withSlash: url.href };
    if (bases.size >= 16) bases.clear();
    bases.set(baseUrl, base);
  }
  return base;
}
const bases = new Map<string, { readonly origin: string; readonly path: string; readonly withSlash: string }>();

/** The href inside a written link, if the value has the link shape. */
export function hrefOfLink(value: unknown): unknown {
  if (value === null || typeof value !== "object") return undefined;
  const meta = (value as { meta?: unknown }).meta;
  if (meta === null || typeof meta !== "object") return undefined;
  return (meta as { href?: unknown }).href;
}
