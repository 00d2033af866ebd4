/** Generic collection and action calls; the generated index gives each one its precise types. */
import { ApiError, etagMemory, etagOf, send, type CallOptions, type ClientOptions, type RequestSpec } from "./runtime.js";

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
  const refusal = idRefusal(id);
  if (refusal !== undefined) throw new TypeError(refusal);
  return typeof id === "number" ? `/${id}` : `/${encodeURIComponent(id)}`;
}

/** Why `id` is no instance id, or undefined when it is one. */
function idRefusal(id: unknown): string | undefined {
  if (typeof id === "number") return Number.isSafeInteger(id) && id >= 1 ? undefined : `${id} is not an instance id: a numeric id is a whole number from 1`;
  if (typeof id !== "string" || id === "" || id === "." || id === "..") return `${JSON.stringify(id)} is not an instance id: "", "." and ".." would change the request's path`;
  return undefined;
}

/** The request path of a returned instance (`base` and its id), to remember its ETag by; undefined when it has no usable id. */
function pathOf(base: string, instance: unknown): string | undefined {
  const id = instance !== null && typeof instance === "object" ? (instance as { id?: unknown }).id : undefined;
  return idRefusal(id) === undefined ? base + seg(id as string | number) : undefined;
}

/** The calls of one collection, untyped; the generated index narrows them. */
export function collectionApi(options: ClientOptions, spec: CollectionSpec) {
  const base = `/${spec.collection}`;
  const etags = etagMemory(options);
  // A write's If-Match: the call's (false: none), else the ETag last seen of the instance unless conditional writes are off.
  const ifMatch = (path: string, call: CallOptions | undefined) =>
    call?.ifMatch !== undefined ? call.ifMatch || undefined : options.conditionalWrites === false ? undefined : etags.get(path);
  // A call on the instance at `path`: its answer's ETag is remembered (none, a delete or a 404 forget the one seen before).
  const onInstance = async (request: RequestSpec, call: CallOptions | undefined) => {
    try {
      const value = await send(options, request, call);
      etags.set(request.path, request.method === "DELETE" ? undefined : etagOf(value));
      return value;
    } catch (error) {
      if (error instanceof ApiError && (error.status === 404 || error.status === 410)) etags.set(request.path, undefined);
      throw error;
    }
  };
  const api: Record<string, unknown> = {
    create: async (body: unknown, call?: CallOptions) => {
      const created = await send(options, { method: "POST", path: base, body, accept: spec.mediaType }, call);
      const path = pathOf(base, created);
      if (path !== undefined) etags.set(path, etagOf(created));
      return created;
    },
    list: (params: ReadParams = {}, call?: CallOptions) => send(options, { method: "GET", path: base, query: { ...params }, accept: spec.collectionMediaType }, call),
    get: async (id: string | number, params: ReadParams = {}, call?: CallOptions) => onInstance({ method: "GET", path: base + seg(id), query: { ...params }, accept: spec.mediaType }, call),
    update: async (id: string | number, patch: unknown, call?: CallOptions) => {
      const path = base + seg(id);
      return onInstance({ method: "PATCH", path, body: patch, contentType: "application/merge-patch+json", accept: spec.mediaType, ifMatch: ifMatch(path, call) }, call);
    },
    replace: async (id: string | number, body: unknown, call?: CallOptions) => {
      const path = base + seg(id);
      return onInstance({ method: "PUT", path, body, accept: spec.mediaType, ifMatch: ifMatch(path, call) }, call);
    },
    delete: async (id: string | number, call?: CallOptions) => {
      const path = base + seg(id);
      await onInstance({ method: "DELETE", path, accept: "application/json", ifMatch: ifMatch(path, call) }, call);
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
