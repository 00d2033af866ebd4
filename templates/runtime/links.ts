/** Hrefs of instances and collections, and the links written in request bodies ({ meta: { href } }). */

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

/**
 * The id an href names in `collection`, or undefined when it is not an href of that collection. The
 * base URL's path must match; its scheme and host may differ (a proxy may rewrite them).
 * @example idFromHref("https://api.example.com/v1/books/42", "https://api.example.com/v1", "books") === "42"
 */
export function idFromHref(href: unknown, baseUrl: string, collection: string): string | undefined {
  if (typeof href !== "string") return undefined;
  let path: string;
  try {
    path = new URL(href, baseUrl + "/").pathname;
  } catch {
    return undefined;
  }
  const prefix = `${basePathOf(baseUrl)}/${collection}/`;
  if (!path.startsWith(prefix)) return undefined;
  const rest = path.slice(prefix.length).replace(/\/+$/, "");
  if (rest === "" || rest.includes("/")) return undefined;
  try {
    return decodeURIComponent(rest);
  } catch {
    return undefined;
  }
}

/** The path of a base URL without its trailing slash, parsed once per base URL (a service has one or two). */
function basePathOf(baseUrl: string): string {
  let path = basePaths.get(baseUrl);
  if (path === undefined) {
    path = new URL(baseUrl + "/").pathname.replace(/\/+$/, "");
    if (basePaths.size >= 16) basePaths.clear();
    basePaths.set(baseUrl, path);
  }
  return path;
}
const basePaths = new Map<string, string>();

/** The href inside a written link, if the value has the link shape. */
export function hrefOfLink(value: unknown): unknown {
  if (value === null || typeof value !== "object") return undefined;
  const meta = (value as { meta?: unknown }).meta;
  if (meta === null || typeof meta !== "object") return undefined;
  return (meta as { href?: unknown }).href;
}
