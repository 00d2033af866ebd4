/** Generic collection and action calls; the generated index gives each one its precise types. */
import { send, type CallOptions, type ClientOptions } from "./runtime.js";

/** Media types and sub-collections of one collection, as the generated index describes it. */
export interface CollectionSpec {
  readonly collection: string;
  readonly mediaType: string;
  readonly collectionMediaType: string;
  /**
   * Method name → [field name, the target's collection media type, and for a stored list of links (whose
   * members can be added and removed) the target's instance media type].
   */
  readonly subCollections: Readonly<Record<string, readonly [string, string] | readonly [string, string, string]>>;
}

/** Query of a read: paging and the fields/expand selections. */
export interface ReadParams {
  offset?: number;
  limit?: number;
  fields?: readonly string[];
  expand?: readonly string[];
}

/**
 * The path segment of an id: a string, or the number of a resource whose ids are a sequence.
 * encodeURIComponent leaves "." alone, and URLs resolve "." and ".." (even as %2E) as dot segments:
 * `update("..")` would PATCH the base path. Such ids name no instance; they are refused here, before
 * anything is sent, as is a number that is no id (not a positive whole number).
 * @example seg("42") === "/42"; seg(42) === "/42"; seg("..") throws TypeError
 */
function seg(id: string | number): string {
  if (typeof id === "number") {
    if (!Number.isSafeInteger(id) || id < 1) throw new TypeError(`${id} is not an instance id: a numeric id is a whole number from 1`);
    return `/${id}`;
  }
  if (typeof id !== "string" || id === "" || id === "." || id === "..") {
    throw new TypeError(`${JSON.stringify(id)} is not an instance id: "", "." and ".." would change the request's path`);
  }
  return `/${encodeURIComponent(id)}`;
}

/** The calls of one collection, untyped; the generated index narrows them. */
export function collectionApi(options: ClientOptions, spec: CollectionSpec) {
  const base = `/${spec.collection}`;
  const api: Record<string, unknown> = {
    create: (body: unknown, call?: CallOptions) => send(options, { method: "POST", path: base, body, accept: spec.mediaType }, call),
    list: (params: ReadParams = {}, call?: CallOptions) => send(options, { method: "GET", path: base, query: { ...params }, accept: spec.collectionMediaType }, call),
    get: async (id: string | number, params: ReadParams = {}, call?: CallOptions) => send(options, { method: "GET", path: base + seg(id), query: { ...params }, accept: spec.mediaType }, call),
    update: async (id: string | number, patch: unknown, call?: CallOptions) =>
      send(options, { method: "PATCH", path: base + seg(id), body: patch, contentType: "application/merge-patch+json", accept: spec.mediaType }, call),
    replace: async (id: string | number, body: unknown, call?: CallOptions) => send(options, { method: "PUT", path: base + seg(id), body, accept: spec.mediaType }, call),
    delete: async (id: string | number, call?: CallOptions) => {
      await send(options, { method: "DELETE", path: base + seg(id), accept: "application/json" }, call);
    },
  };
  for (const [method, [field, mediaType, memberType]] of Object.entries(spec.subCollections)) {
    const list = async (id: string | number, params: ReadParams = {}, call?: CallOptions) =>
      send(options, { method: "GET", path: `${base}${seg(id)}/${field}`, query: { ...params }, accept: mediaType }, call);
    if (memberType !== undefined) {
      // A stored list's members, one at a time: list.add(id, member) and list.remove(id, memberId).
      Object.assign(list, {
        add: (id: string | number, member: string | { readonly meta: { readonly href: string } }, call?: CallOptions) =>
          send(options, { method: "POST", path: `${base}${seg(id)}/${field}`, body: { meta: { href: typeof member === "string" ? member : member.meta.href } }, accept: memberType }, call),
        remove: async (id: string | number, memberId: string | number, call?: CallOptions) => {
          await send(options, { method: "DELETE", path: `${base}${seg(id)}/${field}${seg(memberId)}`, accept: "application/json" }, call);
        },
      });
    }
    api[method] = list;
  }
  return api;
}

/** One action call: its parameters go in the query string. */
export function actionApi(options: ClientOptions, name: string, method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", mediaType: string) {
  return (params: Record<string, string | number | boolean | undefined> = {}, call?: CallOptions) =>
    send(options, { method, path: `/${name}`, query: params, accept: mediaType }, call);
}
