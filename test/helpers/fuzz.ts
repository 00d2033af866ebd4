/**
 * A request fuzzer for a generated service, driven by the package's own docs/openapi.json: it learns the
 * paths, methods, media types, `fields`/`expand` names and body schemas from the document, creates a few
 * instances, then sends valid requests and mutations of them (methods, paths and ids, query, Accept,
 * Content-Type and Content-Encoding, Authorization, bodies) over keep-alive connections, plus raw-socket
 * garbage (bad request lines, bad header bytes, oversized headers, slow trickles).
 *
 * Every case is drawn from its own PRNG seeded by (seed, index), so one case replays alone:
 * `FUZZ_SEED=<seed> FUZZ_CASE=<index>` (see bench/fuzz.ts). Each answer is checked against the contract:
 * no 5xx, and every 4xx/5xx is JSON (or the vendor error type) with the body
 * `{status, code, property, message, dev, info}`, status equal to the HTTP status and info =
 * `<errorDocsUrl>/<code>`. The runner samples the service's RSS from /proc/<pid>/status as it goes.
 *
 * Used by test/e2e/fuzz.test.ts (CI, ≥ 20 000 requests) and bench/fuzz.ts (longer runs).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import zlib from "node:zlib";
import RandExp from "randexp";

// ---------------------------------------------------------------- PRNG

/** mulberry32: a small, fast, seeded PRNG (period 2^32), enough for choosing mutations. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** An integer in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    if (xs.length === 0) throw new Error("pick from an empty list");
    return xs[this.int(xs.length)]!;
  }
  /** One of `choices`, by weight. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    let total = 0;
    for (const [w] of choices) total += w;
    let r = this.next() * total;
    for (const [w, v] of choices) if ((r -= w) < 0) return v;
    return choices[choices.length - 1]![1];
  }
  word(min = 1, max = 12, alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"): string {
    let s = "";
    const n = this.between(min, max);
    for (let i = 0; i < n; i++) s += alphabet[this.int(alphabet.length)];
    return s;
  }
}

/** The seed of case `index` of a run seeded with `seed` (a 32-bit mix, so neighbouring cases differ). */
export function caseSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

// ---------------------------------------------------------------- the model, from openapi.json

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = Record<string, any>;

export interface Collection {
  /** "authors" */
  readonly name: string;
  /** "/authors" (under the base path) */
  readonly path: string;
  readonly collectionMethods: readonly string[];
  readonly instanceMethods: readonly string[];
  readonly inputSchema: Schema | undefined;
  readonly patchSchema: Schema | undefined;
  readonly fields: readonly string[];
  readonly expand: readonly string[];
  /** Link properties of the input body and the collection each names. */
  readonly links: Readonly<Record<string, string>>;
  /** Sub-collections of an instance: "books" for /authors/{id}/books. */
  readonly subs: readonly string[];
  /** Request media types of the body (plain, vendor, alias, merge patch). */
  readonly bodyTypes: readonly string[];
  /** Response media types of an instance, and of a page. */
  readonly instanceTypes: readonly string[];
  readonly pageTypes: readonly string[];
}

export interface Action {
  readonly path: string;
  readonly method: string;
  readonly query: readonly { readonly name: string; readonly required: boolean; readonly schema: Schema; readonly example?: unknown }[];
}

export interface ServiceModel {
  readonly doc: any;
  readonly collections: readonly Collection[];
  readonly actions: readonly Action[];
  readonly mediaTypes: readonly string[];
  /** Media types an error body may be sent as. */
  readonly errorTypes: readonly string[];
  /** Where `info` of every error body points: `<errorDocsUrl>/<code>`. */
  readonly errorDocsUrl: string;
  /** The service's vendor and version, for Accept mutations (`application/vnd.<vendor>.v<N>.…`). */
  readonly vendor: string;
  readonly version: number;
}

/** Follows a local `$ref` ("#/components/…") of the document. */
export function deref(doc: any, value: any): any {
  let v = value;
  for (let hops = 0; v && typeof v === "object" && typeof v.$ref === "string" && hops < 32; hops++) {
    const pointer = (v.$ref as string).replace(/^#\//, "").split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
    v = pointer.reduce((o: any, k) => (o === undefined ? undefined : o[k]), doc);
  }
  return v;
}

const HTTP_METHODS = ["get", "head", "post", "put", "patch", "delete", "options", "trace"];

/** Whether a media type object of openapi.json holds the error body (an alias: a string holding it). */
function isErrorMedia(media: any): boolean {
  const schema = media?.schema?.contentMediaType === "application/json" ? media.schema.contentSchema : media?.schema;
  return typeof schema?.$ref === "string" && /\/Error$/.test(schema.$ref);
}

/** The tags of the service's own endpoints in openapi.json (health, OAuth 2.0). */
const SERVICE_TAGS = new Set(["Service health", "OAuth 2.0"]);

/** Reads what the fuzzer needs from a generated package's openapi.json. */
export function modelOf(doc: any): ServiceModel {
  // The API's paths: not the service's own endpoints (health checks on the origin, OAuth 2.0), which the document tags apart.
  const paths = Object.keys(doc.paths ?? {}).filter((p) => !Object.values<any>(doc.paths[p]).some((op) => SERVICE_TAGS.has(op?.tags?.[0])));
  const methodsOf = (p: string) => Object.keys(doc.paths[p]).filter((m) => HTTP_METHODS.includes(m)).map((m) => m.toUpperCase());
  const mediaTypes = new Set<string>();
  const errorTypes = new Set<string>();
  const walk = (v: any) => {
    if (!v || typeof v !== "object") return;
    if (Array.isArray(v)) return v.forEach(walk);
    for (const [k, child] of Object.entries(v)) {
      if (k === "content" && child && typeof child === "object") {
        for (const [type, media] of Object.entries(child as Record<string, any>)) {
          mediaTypes.add(type);
          if (isErrorMedia(media)) errorTypes.add(type);
        }
      }
      walk(child);
    }
  };
  walk(doc);
  // x-media-type-aliases maps each alias to its vendor type (documents before the aliases were in content).
  for (const [alias, vendorType] of Object.entries<string>(doc["x-media-type-aliases"] ?? {})) {
    if (mediaTypes.has(vendorType)) mediaTypes.add(alias);
    if (errorTypes.has(vendorType)) errorTypes.add(alias);
  }
  let errorDocsUrl = "";
  for (const ex of Object.values<any>(doc.components?.examples ?? {})) {
    const v = ex?.value;
    if (v && typeof v.info === "string" && typeof v.code === "number" && v.info.endsWith(`/${v.code}`)) {
      errorDocsUrl = v.info.slice(0, -`/${v.code}`.length);
      break;
    }
  }
  const vendorType = [...mediaTypes].map((t) => /^application\/vnd\.([a-z0-9-]+)\.v(\d+)\./i.exec(t)).find((m) => m);
  const collectionPaths = paths.filter((p) => !p.includes("{") && paths.includes(`${p}/{id}`));
  const names = collectionPaths.map((p) => p.slice(1));
  const collections: Collection[] = collectionPaths.map((p) => {
    const item = doc.paths[p];
    const instance = doc.paths[`${p}/{id}`];
    const post = item.post;
    const patch = instance.patch;
    const contentOf = (op: any) => deref(doc, op?.requestBody)?.content ?? {};
    const inputContent = contentOf(post);
    const firstSchema = (content: Record<string, any>) => {
      const first = Object.values(content)[0];
      return first ? deref(doc, first.schema) : undefined;
    };
    const inputSchema = firstSchema(inputContent);
    const patchSchema = firstSchema(contentOf(patch));
    const paramNames = (name: string) => {
      for (const param of instance.get?.parameters ?? []) {
        const prm = deref(doc, param);
        if (prm?.name === name) return (prm.schema?.items?.anyOf?.[0]?.enum as string[] | undefined) ?? [];
      }
      return [];
    };
    // A link property's collection, as its example shows: "author": { "meta": { "href": ".../authors/<id>" } }.
    const links: Record<string, string> = {};
    const inputName = typeof deref(doc, post?.requestBody)?.content?.["application/json"]?.schema?.$ref === "string"
      ? (deref(doc, post.requestBody).content["application/json"].schema.$ref as string).split("/").pop()
      : undefined;
    const example = inputName ? doc.components?.examples?.[inputName]?.value : undefined;
    for (const [prop, value] of Object.entries<any>(example ?? {})) {
      const href = value?.meta?.href;
      if (typeof href !== "string") continue;
      const segments = new URL(href).pathname.split("/");
      const target = names.find((n) => segments[segments.length - 2] === n);
      if (target) links[prop] = target;
    }
    const typesOf = (op: any) => {
      const types = new Set<string>();
      for (const r of Object.values<any>(op?.responses ?? {})) {
        const resp = deref(doc, r);
        for (const [type, media] of Object.entries<any>(resp?.content ?? {})) if (!isErrorMedia(media)) types.add(type);
      }
      return [...types];
    };
    return {
      name: p.slice(1),
      path: p,
      collectionMethods: methodsOf(p),
      instanceMethods: methodsOf(`${p}/{id}`),
      inputSchema,
      patchSchema,
      fields: paramNames("fields"),
      expand: paramNames("expand"),
      links,
      subs: paths.filter((q) => q.startsWith(`${p}/{id}/`)).map((q) => q.slice(`${p}/{id}/`.length)),
      bodyTypes: [...new Set([...Object.keys(inputContent), ...Object.keys(contentOf(patch))])],
      instanceTypes: typesOf(instance.get),
      pageTypes: typesOf(item.get),
    };
  });
  const actions: Action[] = [];
  for (const p of paths) {
    if (p.includes("{") || collectionPaths.includes(p)) continue;
    for (const m of methodsOf(p)) {
      const op = doc.paths[p][m.toLowerCase()];
      const query = (op.parameters ?? []).map((x: any) => deref(doc, x)).filter((x: any) => x?.in === "query");
      actions.push({ path: p, method: m, query: query.map((q: any) => ({ name: q.name, required: !!q.required, schema: deref(doc, q.schema) ?? {}, example: q.example })) });
    }
  }
  return {
    doc,
    collections,
    actions,
    mediaTypes: [...mediaTypes],
    errorTypes: [...errorTypes],
    errorDocsUrl,
    vendor: vendorType?.[1] ?? "vendor",
    version: Number(vendorType?.[2] ?? 1),
  };
}

// ---------------------------------------------------------------- values from schemas

/** Ids of instances the fuzzer may use: `stable` ones are never deleted by it; `fresh` ones were created during the run. */
export interface Pools {
  readonly stable: Map<string, string[]>;
  readonly fresh: Map<string, string[]>;
  /** Absolute href of an instance: `<baseUrl>/<collection>/<id>`. */
  readonly baseUrl: string;
}

/** A value that satisfies `schema` (as far as the keywords in openapi.json go), links pointing at existing instances. */
export function sampleValid(doc: any, schema: Schema | undefined, rng: Rng, pools: Pools, links: Readonly<Record<string, string>> = {}, depth = 0): Json {
  const s: Schema = deref(doc, schema) ?? {};
  if (depth > 8) return null;
  if (s.const !== undefined) return s.const as Json;
  if (Array.isArray(s.enum)) return rng.pick(s.enum) as Json;
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches)) {
    const nonNull = branches.filter((b: any) => deref(doc, b)?.type !== "null");
    return sampleValid(doc, rng.pick(nonNull.length > 0 && rng.chance(0.9) ? nonNull : branches), rng, pools, links, depth + 1);
  }
  const type = Array.isArray(s.type) ? rng.pick(s.type) : s.type ?? (s.properties ? "object" : "string");
  switch (type) {
    case "object": {
      const out: Record<string, Json> = {};
      const required: string[] = s.required ?? [];
      for (const [name, sub] of Object.entries<any>(s.properties ?? {})) {
        if (!required.includes(name) && !rng.chance(0.6)) continue;
        const target = links[name];
        if (target) {
          const ids = pools.stable.get(target) ?? [];
          if (ids.length > 0) out[name] = { meta: { href: `${pools.baseUrl}/${target}/${rng.pick(ids)}` } };
          else if (required.includes(name)) out[name] = { meta: { href: `${pools.baseUrl}/${target}/missing` } };
          continue;
        }
        out[name] = sampleValid(doc, sub, rng, pools, {}, depth + 1);
      }
      return out;
    }
    case "array": {
      const min = s.minItems ?? 0;
      const max = Math.min(s.maxItems ?? 3, min + 3);
      const items: Json[] = [];
      const n = rng.between(min, max);
      for (let i = 0; i < n * 3 && items.length < n; i++) {
        const v = sampleValid(doc, s.items, rng, pools, {}, depth + 1);
        if (s.uniqueItems && items.some((x) => JSON.stringify(x) === JSON.stringify(v))) continue;
        items.push(v);
      }
      return items;
    }
    case "integer":
    case "number": {
      const lo = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1000);
      const hi = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : lo + 5000);
      const v = rng.between(Math.ceil(lo), Math.floor(Math.max(lo, hi)));
      return type === "number" && rng.chance(0.5) ? v + 0.5 * (v < hi ? 1 : 0) : v;
    }
    case "boolean":
      return rng.chance(0.5);
    case "null":
      return null;
    default: {
      if (typeof s.pattern === "string") {
        try {
          const gen = new RandExp(s.pattern);
          gen.randInt = (a, b) => rng.between(a, b);
          gen.max = 4;
          return gen.gen();
        } catch {
          /* fall through to a plain string */
        }
      }
      switch (s.format) {
        case "date-time":
          return new Date(Date.UTC(2000 + rng.int(30), rng.int(12), 1 + rng.int(28), rng.int(24), rng.int(60))).toISOString();
        case "date":
          return `20${rng.between(10, 29)}-0${rng.between(1, 9)}-1${rng.int(10)}`;
        case "email":
          return `${rng.word()}@example.org`;
        case "uri":
          return `https://example.org/${rng.word()}`;
        case "uuid":
          return uuid(rng);
      }
      const min = s.minLength ?? 1;
      const max = Math.min(s.maxLength ?? 24, min + 24);
      return rng.word(min, Math.max(min, max), "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789éß-");
    }
  }
}

function uuid(rng: Rng): string {
  const h = () => rng.word(4, 4, "0123456789abcdef");
  return `${h()}${h()}-${h()}-7${h().slice(1)}-8${h().slice(1)}-${h()}${h()}${h()}`;
}

/** A value of a wrong or hostile kind, for a property. */
function junkValue(rng: Rng, depth = 0): Json {
  return rng.weighted<() => Json>([
    [3, () => null],
    [2, () => rng.chance(0.5)],
    [2, () => rng.pick([0, -1, 1.5, -0.0001, 1e308, -1e308, 2 ** 53 + 1, Number.MAX_SAFE_INTEGER, 4294967296, -2147483649])],
    [3, () => rng.pick(["", " ", "0", "null", "true", "\u0000", "\ud800", "\udfff", "𝕏𝕐", "\u202e", "'; DROP TABLE x; --", "../../etc/passwd", "%00", "<script>", "${1+1}", "a".repeat(rng.pick([201, 501, 5000, 70_000]))])],
    [2, () => []],
    [2, () => ({})],
    [1, () => (depth < 3 ? [junkValue(rng, depth + 1), junkValue(rng, depth + 1)] : 1)],
    [1, () => (depth < 3 ? { meta: { href: junkValue(rng, depth + 1) } } : "x")],
    [1, () => ({ meta: { href: rng.pick(["", "x", "http://evil.example/v2/authors/1", "/v2/authors/1", "javascript:alert(1)"]) } })],
  ])();
}

// ---------------------------------------------------------------- cases

/** A request sent with node:http over a keep-alive agent. Headers may repeat (duplicate Authorization). */
export interface HttpCase {
  readonly kind: "http";
  readonly index: number;
  readonly labels: readonly string[];
  readonly method: string;
  readonly path: string;
  readonly headers: readonly (readonly [string, string])[];
  readonly body?: Buffer | undefined;
  /** What this case must get besides the contract, when its mutations make that unambiguous. */
  readonly expect?: Expectation | undefined;
}

/** A narrow expectation of a case: one of `statuses`, or (never2xx) anything but a success. */
export interface Expectation {
  readonly statuses?: readonly number[];
  readonly never2xx?: boolean;
  /** The rule, the same for every case it applies to (a failure class). */
  readonly rule: string;
  /** This case's particulars. */
  readonly detail: string;
}

/** Methods Node's HTTP parser accepts (others are a 400 of the parser, before any route). */
const PARSABLE_METHODS = new Set(http.METHODS);

/** Bytes written to a fresh socket, chunk by chunk with `delayMs` between chunks. */
export interface RawCase {
  readonly kind: "raw";
  readonly index: number;
  readonly labels: readonly string[];
  readonly chunks: readonly Buffer[];
  readonly delayMs: number;
  /** HEAD: an answer has no body even when it has a Content-Length. */
  readonly head?: boolean;
}

export type Case = HttpCase | RawCase;

interface Draft {
  method: string;
  /** The path as sent, before the query. */
  path: string;
  query: [string, string][];
  rawQuery?: string;
  headers: [string, string][];
  body?: Buffer | undefined;
  labels: string[];
  collection?: Collection | undefined;
  /** The id in the path, when it is a stable instance (a DELETE then takes a fresh one instead). */
  stableId?: string | undefined;
  /** The credentials of the base request. */
  auth: "write" | "read" | "none";
  /** The methods of the base request's route (undefined: not a route of the API). */
  allowed?: readonly string[] | undefined;
}

export interface Keys {
  /** A secret whose roles may write everything. */
  readonly write: string;
  /** A secret with read roles only. */
  readonly read: string;
  /** The id of the write key (for Basic credentials). */
  readonly writeId?: string;
}

export interface CaseContext {
  readonly model: ServiceModel;
  readonly pools: Pools;
  readonly keys: Keys;
  /** The path prefix of the base URL: "/v2". */
  readonly basePath: string;
}

const METHOD_MUTATIONS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "QUERY", "TRACE", "PROPFIND", "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK", "SEARCH", "REPORT", "PURGE", "LINK", "UNLINK", "SOURCE", "M-SEARCH", "NOTIFY", "SUBSCRIBE", "BIND", "ACL", "FOO", "GETT", "X", "BREW"];

/** Builds case `index` of a run seeded with `seed`. */
export function makeCase(ctx: CaseContext, seed: number, index: number): Case {
  const rng = new Rng(caseSeed(seed, index));
  if (rng.chance(0.03)) return rawCase(ctx, rng, index);
  const draft = baseRequest(ctx, rng);
  const mutations = rng.weighted([
    [25, 0],
    [45, 1],
    [20, 2],
    [10, 3],
  ]);
  for (let i = 0; i < mutations; i++) {
    const mutate = rng.weighted<(c: CaseContext, r: Rng, d: Draft) => void>([
      [10, mutateMethod],
      [12, mutatePath],
      [14, mutateQuery],
      [10, mutateAccept],
      [10, mutateContentType],
      [10, mutateAuthorization],
      [16, mutateBody],
      [4, mutateOtherHeaders],
    ]);
    mutate(ctx, rng, draft);
  }
  if (draft.method === "DELETE" && draft.stableId && draft.collection) {
    // A DELETE never removes a stable instance: later cases rely on them.
    const fresh = ctx.pools.fresh.get(draft.collection.name) ?? [];
    const replacement = fresh.length > 0 ? rng.pick(fresh) : uuid(rng);
    draft.path = draft.path.replace(draft.stableId, replacement);
  }
  const query = draft.rawQuery ?? draft.query.map(([k, v]) => (v === "\0novalue" ? k : `${k}=${v}`)).join("&");
  const fullPath = query ? `${draft.path}?${query}` : draft.path;
  return { kind: "http", index, labels: draft.labels, method: draft.method, path: fullPath, headers: draft.headers, body: draft.body, expect: expectationOf(draft, ctx) };
}

/**
 * What a case must get, where one mutation of a valid request makes it unambiguous:
 * - a method the route does not answer (and Node parses): 405;
 * - a body with a Content-Encoding other than identity, on a route that reads bodies: 415;
 * - no credentials, and only the body or its headers mutated: 401 (credentials are checked before the body is read);
 * - two Authorization headers on the API: never a success.
 */
function expectationOf(d: Draft, ctx: CaseContext): Expectation | undefined {
  const mutations = d.labels.slice(1);
  const only = (prefix: string) => mutations.length === 1 && mutations[0]!.startsWith(prefix);
  const allowed = d.allowed;
  if (allowed && d.auth === "write" && only("method ") && PARSABLE_METHODS.has(d.method) && d.method !== "OPTIONS" && d.method !== "CONNECT") {
    const answered = allowed.includes("GET") ? [...allowed, "HEAD"] : allowed;
    if (!answered.includes(d.method)) return { statuses: [405], rule: "a method the route does not answer", detail: `${d.method} on a route that answers ${answered.join(", ")}` };
  }
  const encoding = d.headers.find(([n]) => n === "content-encoding")?.[1];
  // On a stable instance or a collection: a deleted id could be a 404 before the body is looked at.
  const existing = d.stableId !== undefined || (d.collection !== undefined && d.path === `${ctx.basePath}${d.collection.path}`);
  if (allowed?.includes(d.method) && existing && d.auth === "write" && only("content-encoding") && d.body !== undefined && ["POST", "PUT", "PATCH"].includes(d.method) && encoding && encoding.toLowerCase() !== "identity") {
    return { statuses: [415], rule: "a body with a Content-Encoding", detail: `Content-Encoding: ${encoding}` };
  }
  if (allowed?.includes(d.method) && d.auth === "none" && mutations.length > 0 && mutations.every((m) => m.startsWith("body ") || m.startsWith("content-"))) {
    return { statuses: [401], rule: "no credentials, a bad body (credentials are checked first)", detail: mutations.join(" + ") };
  }
  const api = d.path.startsWith(`${ctx.basePath}/`) && !d.path.startsWith("/docs");
  if (api && d.method !== "OPTIONS" && d.headers.filter(([n]) => n.toLowerCase() === "authorization").length > 1) {
    return { never2xx: true, rule: "two Authorization headers", detail: d.headers.filter(([n]) => n === "authorization").map(([, v]) => v.slice(0, 12)).join(" | ") };
  }
  return undefined;
}

function header(d: Draft, name: string, value: string): void {
  d.headers = d.headers.filter(([n]) => n.toLowerCase() !== name.toLowerCase());
  d.headers.push([name, value]);
}

function jsonBody(d: Draft, value: unknown, type = "application/json"): void {
  d.body = Buffer.from(JSON.stringify(value));
  header(d, "content-type", type);
}

/** A valid request on one of the service's operations. */
function baseRequest(ctx: CaseContext, rng: Rng): Draft {
  const { model, pools, keys, basePath } = ctx;
  const d: Draft = { method: "GET", path: basePath, query: [], headers: [["authorization", `Bearer ${keys.write}`]], labels: [], auth: "write" };
  const kind = rng.weighted([
    [30, "collection"],
    [40, "instance"],
    [8, "sub"],
    [7, "action"],
    [5, "docs"],
    [5, "read-key"],
    [5, "anonymous"],
  ] as const);
  if (kind === "docs") {
    d.method = "GET";
    d.headers = [];
    d.auth = "none";
    d.path = rng.pick(["/docs/", "/docs/openapi.json", "/docs/assets/style.css", `/docs/errors/${rng.pick([40000, 40400, 40900, 41500, 99999])}`, "/docs/index.html", "/docs"]);
    d.labels.push("docs");
    return d;
  }
  if (kind === "action" && model.actions.length > 0) {
    const action = rng.pick(model.actions);
    d.method = action.method;
    d.path = `${basePath}${action.path}`;
    d.allowed = model.actions.filter((a) => a.path === action.path).map((a) => a.method);
    for (const q of action.query) {
      if (q.required || rng.chance(0.5)) d.query.push([q.name, encodeURIComponent(String(q.example ?? sampleValid(model.doc, q.schema, rng, pools)))]);
    }
    d.labels.push(`action ${action.method} ${action.path}`);
    return d;
  }
  const c = rng.pick(model.collections);
  d.collection = c;
  if (kind === "read-key") {
    header(d, "authorization", `Bearer ${keys.read}`);
    d.auth = "read";
  }
  if (kind === "anonymous") {
    d.headers = [];
    d.auth = "none";
  }
  const stable = pools.stable.get(c.name) ?? [];
  const fresh = pools.fresh.get(c.name) ?? [];
  const pickInstance = (method: string): string => {
    if (method === "DELETE") return fresh.length > 0 ? rng.pick(fresh) : uuid(rng);
    if (stable.length > 0 && (fresh.length === 0 || rng.chance(0.7))) return (d.stableId = rng.pick(stable));
    return fresh.length > 0 ? rng.pick(fresh) : uuid(rng);
  };
  if (kind === "sub" && c.subs.length > 0) {
    d.method = "GET";
    d.path = `${basePath}${c.path}/${pickInstance("GET")}/${rng.pick(c.subs)}`;
    d.allowed = methodsOfPath(model, `${c.path}/{id}/`);
    d.labels.push(`GET ${c.path}/{id}/sub`);
  } else if (kind === "collection" || kind === "sub") {
    d.method = rng.pick(c.collectionMethods.filter((m) => m !== "HEAD"));
    d.path = `${basePath}${c.path}`;
    d.allowed = c.collectionMethods;
    d.labels.push(`${d.method} ${c.path}`);
  } else {
    d.method = rng.pick(c.instanceMethods.filter((m) => m !== "HEAD"));
    d.path = `${basePath}${c.path}/${pickInstance(d.method)}`;
    d.allowed = c.instanceMethods;
    d.labels.push(`${d.method} ${c.path}/{id}`);
  }
  if (d.method === "GET") {
    if (rng.chance(0.3) && c.fields.length > 0) d.query.push(["fields", validSelection(rng, c.fields, ctx.model, c)]);
    if (rng.chance(0.3) && c.expand.length > 0) d.query.push(["expand", rng.pick(c.expand)]);
    if (!d.path.endsWith(`/${c.path.slice(1)}`) || rng.chance(0.5)) {
      if (rng.chance(0.3)) d.query.push(["limit", String(rng.between(1, 100))]);
      if (rng.chance(0.2)) d.query.push(["offset", String(rng.between(0, 50))]);
    }
  }
  if (rng.chance(0.4)) {
    // The types of what this request answers: a page for a GET of a collection, an instance otherwise.
    const page = d.method === "GET" && (d.path === `${basePath}${c.path}` || kind === "sub");
    const target = kind === "sub" ? model.collections.find((x) => d.path.endsWith(`/${x.name}`)) ?? c : c;
    const types = page ? target.pageTypes : c.instanceTypes;
    if (types.length > 0) header(d, "accept", rng.pick(types));
  }
  if (d.method === "POST" || d.method === "PUT" || d.method === "PATCH") {
    const patch = d.method === "PATCH" || (d.method === "POST" && d.path !== `${basePath}${c.path}`);
    const schema = patch ? c.patchSchema : c.inputSchema;
    const types = c.bodyTypes.filter((t) => (patch ? true : t !== "application/merge-patch+json"));
    jsonBody(d, sampleValid(model.doc, schema, rng, pools, c.links), types.length > 0 ? rng.pick(types) : "application/json");
  }
  return d;
}

/** The methods of the first path of the document that starts with `prefix` ("/authors/{id}/"). */
function methodsOfPath(model: ServiceModel, prefix: string): string[] {
  const p = Object.keys(model.doc.paths).find((x) => x.startsWith(prefix));
  return p ? Object.keys(model.doc.paths[p]).filter((m) => HTTP_METHODS.includes(m)).map((m) => m.toUpperCase()) : [];
}

/** A valid `fields` value: names, and link(sub) selections. */
function validSelection(rng: Rng, names: readonly string[], model: ServiceModel, c: Collection): string {
  const picked = new Set<string>();
  const n = rng.between(1, Math.min(4, names.length));
  for (let i = 0; i < n; i++) {
    const name = rng.pick(names);
    const target = model.collections.find((x) => x.name === c.links[name]);
    picked.add(target && target.fields.length > 0 && rng.chance(0.3) ? `${name}(${rng.pick(target.fields)})` : name);
  }
  return [...picked].join(",");
}

function mutateMethod(_ctx: CaseContext, rng: Rng, d: Draft): void {
  d.method = rng.pick(METHOD_MUTATIONS);
  d.labels.push(`method ${d.method}`);
  if (["QUERY", "PROPFIND", "SEARCH", "REPORT"].includes(d.method) && rng.chance(0.5)) {
    d.body = Buffer.from(rng.chance(0.5) ? '{"q":1}' : "<?xml version=\"1.0\"?><propfind xmlns=\"DAV:\"><allprop/></propfind>");
    if (rng.chance(0.5)) header(d, "content-type", rng.pick(["application/json", "application/xml", "text/plain"]));
  }
  if (d.method === "GET" || d.method === "HEAD" || d.method === "DELETE") {
    if (rng.chance(0.7)) {
      d.body = undefined;
      if (rng.chance(0.5)) d.headers = d.headers.filter(([n]) => n !== "content-type");
    }
  }
}

const ID_MUTATIONS: readonly ((rng: Rng) => string)[] = [
  (rng) => "x".repeat(rng.pick([100, 1000, 8000, 20_000])),
  () => "..",
  () => "%2e%2e",
  () => "..%2f..%2f..%2fetc%2fpasswd",
  () => "%00",
  () => "a%00b",
  () => "%",
  () => "%zz",
  () => "%c3%28",
  () => "%ff%fe",
  () => "%E2%80%AE",
  () => "%F0%9F%98%80",
  () => "%ED%A0%80",
  () => "%25",
  () => "%252e%252e",
  () => "%20",
  () => "%0d%0aX-Injected:%201",
  () => "'%20OR%201=1--",
  () => "*",
  () => "null",
  () => "0",
  () => "-1",
  () => "1e999",
  (rng) => uuid(rng),
  (rng) => rng.word(1, 40),
  () => "%2f",
  () => "a;b=c",
  () => "id?x",
  () => ";",
  () => "~",
  () => "!$&'()*+,;=:@",
];

function mutatePath(ctx: CaseContext, rng: Rng, d: Draft): void {
  const { basePath, model } = ctx;
  const kind = rng.weighted([
    [8, "id"],
    [3, "unknown"],
    [2, "prefix"],
    [2, "slashes"],
    [2, "sub"],
    [2, "docs"],
    [1, "dots"],
  ] as const);
  d.labels.push(`path ${kind}`);
  d.stableId = undefined;
  d.allowed = undefined;
  const c = d.collection ?? rng.pick(model.collections);
  d.collection = c;
  switch (kind) {
    case "id":
      d.path = `${basePath}${c.path}/${rng.pick(ID_MUTATIONS)(rng)}`;
      break;
    case "unknown":
      d.path = `${basePath}/${rng.word(1, 20)}${rng.chance(0.5) ? `/${rng.word(1, 8)}` : ""}`;
      break;
    case "prefix":
      d.path = rng.pick([`${c.path}`, `/v${model.version + 1}${c.path}`, `/v0${c.path}`, `/`, `${basePath}`, `${basePath}/`, `${basePath.toUpperCase()}${c.path}`]);
      break;
    case "slashes":
      d.path = rng.pick([`${basePath}//${c.path.slice(1)}`, `${basePath}${c.path}/`, `${basePath}${c.path}//`, `/${basePath}${c.path}`, `${basePath}${c.path}/./`, `${basePath}/.${c.path}`]);
      break;
    case "sub":
      d.path = `${basePath}${c.path}/${uuid(rng)}/${rng.pick([...c.subs, rng.word(), "..", "%2e%2e"])}${rng.chance(0.3) ? `/${rng.word()}` : ""}`;
      break;
    case "docs":
      d.path = rng.pick(["/docs/..%2fpackage.json", "/docs/../package.json", "/docs/%2e%2e/%2e%2e/etc/passwd", "/docs/%00", "/docs/%", "/docs/errors/..%2f..%2fpackage", "/docs/errors/%zz", "/docs/errors/" + "9".repeat(5000), "/docs//etc/passwd", "/docs/assets/", "/docs/openapi.json/", "/docs/nope.html"]);
      break;
    case "dots":
      d.path = rng.pick([`${basePath}/../${c.path.slice(1)}`, `${basePath}/%2e%2e${c.path}`, `/..${basePath}${c.path}`]);
      break;
  }
}

/** A deep or broken `fields`/`expand` value. */
function selectionJunk(rng: Rng, names: readonly string[]): string {
  const name = () => (names.length > 0 && rng.chance(0.7) ? rng.pick(names) : rng.word(1, 10));
  return rng.weighted<() => string>([
    [3, () => {
      const depth = rng.between(2, 12);
      return `${Array.from({ length: depth }, name).join("(")}${")".repeat(depth - 1)}`;
    }],
    [2, () => {
      const depth = rng.pick([50, 200, 2000]);
      return `${"a(".repeat(depth)}a${")".repeat(depth)}`;
    }],
    [2, () => Array.from({ length: rng.pick([10, 100, 1000, 3000]) }, name).join(",")],
    [2, () => rng.pick(["(", ")", "((", "))", "a(", "a)", "a(b", "a(b))", "()", "a()", ",", ",,,", "", " ", "a,,b", "a(,)", "(a)", "a((b))", "a)(b", "*", "a.b", "a[0]", "%28", "a%2Cb"])],
    [2, () => `${name()}(${rng.pick(["", "(", ")", "x", rng.word()])}`],
    [1, () => rng.pick(["ñame", "名前", "\u0000", "a b", "a\tb", "𝕏", "a&b=c", "a#b", "a+b"])],
    [2, () => rng.word(1, 30)],
  ])();
}

function mutateQuery(ctx: CaseContext, rng: Rng, d: Draft): void {
  const c = d.collection ?? rng.pick(ctx.model.collections);
  const allNames = [...c.fields, ...c.expand];
  const kind = rng.weighted([
    [5, "fields"],
    [5, "expand"],
    [3, "paging"],
    [2, "unknown"],
    [2, "repeated"],
    [1, "encoding"],
    [1, "token"],
  ] as const);
  d.labels.push(`query ${kind}`);
  switch (kind) {
    case "fields":
    case "expand":
      d.query.push([kind, encodeSelection(selectionJunk(rng, kind === "fields" ? allNames : c.expand))]);
      break;
    case "paging":
      d.query.push([rng.pick(["limit", "offset"]), encodeURIComponent(rng.pick(["-1", "0", "101", "1.5", "1e3", "1e400", "abc", "", "NaN", "Infinity", "0x10", " 5", "9".repeat(40), "00001", "[]", "%"]))]);
      break;
    case "unknown":
      d.query.push([rng.word(1, 10), rng.word(0, 10)]);
      break;
    case "repeated": {
      const name = rng.pick(["fields", "expand", "limit", "offset"]);
      const n = rng.pick([2, 3, 50, 500]);
      for (let i = 0; i < n; i++) d.query.push([name, name === "limit" || name === "offset" ? String(i + 1) : encodeSelection(rng.pick([...allNames, "x"]))]);
      break;
    }
    case "encoding":
      d.rawQuery = rng.pick(["%", "%zz", "a=%", "fields=%c3%28", "fields=%ff", "=&=&", "&&&", "fields", "fields=&expand=", "a[b]=1", "__proto__[x]=1", "constructor[prototype][x]=1", "fields[]=a", "%00=%00", "x".repeat(8000)]);
      break;
    case "token":
      d.query.push(["access_token", rng.chance(0.5) ? ctx.keys.write : rng.word(10, 40)]);
      break;
  }
}

/** Percent-encodes what a URL may not carry raw, keeping ( ) , readable. */
function encodeSelection(s: string): string {
  return encodeURIComponent(s).replace(/%28/g, "(").replace(/%29/g, ")").replace(/%2C/g, ",");
}

function mutateAccept(ctx: CaseContext, rng: Rng, d: Draft): void {
  const { model } = ctx;
  const types = model.mediaTypes;
  const v = model.version;
  const vendor = model.vendor;
  const kind = rng.weighted<() => string>([
    [3, () => rng.pick(types)],
    [2, () => rng.pick(["*/*", "application/*", "*/json", "*", "*/*;q=0", "application/*;q=0.1"])],
    [3, () => `${rng.pick(types)};q=${rng.pick(["0", "0.5", "1", "1.5", "-1", "abc", "", "0.0001", "1.000", "NaN", "1e3"])}`],
    [3, () => `application/vnd.${vendor}.v${rng.pick([0, v - 1, v + 1, 99, 2 ** 40, -1])}.${rng.pick(ctx.model.collections).name.replace(/s$/, "")}+json`],
    [1, () => `application/${vendor}.v${v + 1}.${rng.word()}.json`],
    [3, () => rng.pick(["text/html", "application/xml", "", ",", ";;;", "application/json;charset=latin1", "application/json; version=2", "application/JSON", "APPLICATION/VND." + vendor.toUpperCase() + ".V" + v + ".ERROR+JSON", "text/*", "application/json, text/html;q=0.9", "application/problem+json", "image/png"])],
    [1, () => Array.from({ length: rng.pick([50, 1000]) }, () => rng.pick(types) + `;q=0.${rng.int(10)}`).join(", ")],
    [1, () => `application/${"x".repeat(rng.pick([200, 4000]))}+json`],
    [1, () => rng.word(1, 60, "abcdefghijklmnopqrstuvwxyz/*;=,.+- \t0123456789\"")],
  ]);
  d.labels.push("accept");
  header(d, "accept", kind());
}

function mutateContentType(ctx: CaseContext, rng: Rng, d: Draft): void {
  const kind = rng.weighted([
    [4, "type"],
    [3, "encoding"],
    [1, "missing"],
    [1, "chunked"],
  ] as const);
  d.labels.push(`content-${kind}`);
  if (d.body === undefined && rng.chance(0.7)) d.body = Buffer.from('{"name":"x"}');
  switch (kind) {
    case "type":
      header(d, "content-type", rng.pick([...ctx.model.mediaTypes, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=latin1", "application/json; charset=utf-16", "application/json;;;", "application/json, text/plain", "", "json", "application/", "/json", "application/json\t", "APPLICATION/JSON", "application/merge-patch+json", "application/vnd.evil.v1.x+json", `application/vnd.${ctx.model.vendor}.v${ctx.model.version + 1}.x+json`, "application/" + "a".repeat(300) + "+json", "application/xml", "application/octet-stream"]));
      break;
    case "encoding": {
      const enc = rng.pick(["gzip", "br", "deflate", "identity", "gzip, gzip", "x-gzip", "compress", "zstd", "", "junk", "GZIP", "gzip;q=1", "chunked"]);
      header(d, "content-encoding", enc);
      if (d.body && rng.chance(0.5)) {
        if (enc === "gzip") d.body = zlib.gzipSync(d.body);
        else if (enc === "br") d.body = zlib.brotliCompressSync(d.body);
        else if (enc === "deflate") d.body = zlib.deflateSync(d.body);
      }
      if (!d.headers.some(([n]) => n === "content-type")) header(d, "content-type", "application/json");
      break;
    }
    case "missing":
      d.headers = d.headers.filter(([n]) => n !== "content-type");
      break;
    case "chunked":
      // node:http sends the body chunked when there is no Content-Length (see sendHttp).
      header(d, "transfer-encoding", "chunked");
      break;
  }
}

function mutateAuthorization(ctx: CaseContext, rng: Rng, d: Draft): void {
  const { keys } = ctx;
  const good = `Bearer ${keys.write}`;
  const bad = () => rng.pick([`Bearer ${rng.word(20, 43, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")}`, "Bearer", "Bearer ", `bearer ${keys.write}`, `BEARER ${keys.write}`, `Bearer  ${keys.write}`, `Bearer ${keys.write} extra`, `Bearer ${keys.write.slice(0, -1)}`, "Basic", "Basic !!!", `Basic ${Buffer.from(`${keys.writeId ?? "id"}:${keys.write}`).toString("base64")}`, `Basic ${Buffer.from("no-colon").toString("base64")}`, "Digest username=x", "Negotiate abc", "Token x", "", " ", ",", "Bearer é", `Bearer ${"A".repeat(rng.pick([1000, 8000, 15_000]))}`, `Bearer ${keys.read}`]);
  const kind = rng.weighted([
    [2, "none"],
    [4, "bad"],
    [3, "duplicate"],
    [1, "huge"],
  ] as const);
  d.labels.push(`authorization ${kind}`);
  d.headers = d.headers.filter(([n]) => n.toLowerCase() !== "authorization");
  switch (kind) {
    case "none":
      break;
    case "bad":
      d.headers.push(["authorization", bad()]);
      break;
    case "duplicate": {
      const pair = rng.pick([
        [good, bad()],
        [bad(), good],
        [good, good],
        [`Bearer ${keys.read}`, good],
        [good, `Bearer ${keys.read}`],
      ]);
      d.headers.push(["authorization", pair[0]!], ["authorization", pair[1]!]);
      break;
    }
    case "huge":
      d.headers.push(["authorization", `Bearer ${"x".repeat(rng.pick([20_000, 70_000]))}`]);
      break;
  }
}

/** Deep JSON: arrays or objects nested `depth` times. */
function deepJson(depth: number, kind: "array" | "object"): string {
  return kind === "array" ? `${"[".repeat(depth)}${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

function mutateBody(ctx: CaseContext, rng: Rng, d: Draft): void {
  const c = d.collection ?? rng.pick(ctx.model.collections);
  const valid = () => sampleValid(ctx.model.doc, c.inputSchema, rng, ctx.pools, c.links) as Record<string, Json>;
  const kind = rng.weighted([
    [5, "value"],
    [3, "extra"],
    [2, "missing"],
    [3, "text"],
    [1, "huge"],
    [2, "deep"],
    [3, "proto"],
    [2, "utf8"],
    [2, "numbers"],
  ] as const);
  d.labels.push(`body ${kind}`);
  let text: string | Buffer;
  switch (kind) {
    case "value": {
      const body = valid();
      const props = Object.keys(c.inputSchema?.properties ?? {});
      const n = rng.between(1, 3);
      for (let i = 0; i < n && props.length > 0; i++) body[rng.pick(props)] = junkValue(rng);
      text = JSON.stringify(body);
      break;
    }
    case "extra": {
      const body = valid();
      body[rng.pick(["id", "meta", "createdAt", "modifiedAt", "owner", "x", "toString", "valueOf", "hasOwnProperty", "constructor", "__defineGetter__", rng.word()])] = junkValue(rng);
      text = JSON.stringify(body);
      break;
    }
    case "missing": {
      const body = valid();
      for (const r of (c.inputSchema?.required as string[] | undefined) ?? []) if (rng.chance(0.7)) delete body[r];
      text = JSON.stringify(body);
      break;
    }
    case "text":
      text = rng.pick(["", " ", "null", "[]", "1", '"x"', "true", "{", "}", "{]", '{"a":}', "{'a':1}", '{"a":1,}', "\ufeff{}", '{"a":1}{"b":2}', '{"a":1} x', "NaN", "[1,2,", '{"a":"\\x"}', '{"a":"\\ud800"}', "\u0000", '{"a":1e999}', "<xml/>", "name=x&a=b"]);
      break;
    case "huge": {
      const size = rng.pick([600_000, 1_048_000, 1_100_000, 3_000_000]);
      text = JSON.stringify({ ...valid(), x: "y".repeat(size) });
      break;
    }
    case "deep":
      text = rng.chance(0.5) ? deepJson(rng.pick([100, 1000, 10_000, 100_000]), rng.chance(0.5) ? "array" : "object") : `{"name":${deepJson(rng.pick([1000, 50_000]), "array")}}`;
      break;
    case "proto": {
      const base = JSON.stringify(valid()).slice(1, -1);
      const sep = base ? "," : "";
      text = rng.pick([
        `{"__proto__":{"admin":true}${sep}${base}}`,
        `{${base}${sep}"constructor":{"prototype":{"admin":true}}}`,
        `{${base}${sep}"x":{"__proto__":{"polluted":1}}}`,
        `{"__proto__":null${sep}${base}}`,
        `{${base}${sep}"\\u005f\\u005fproto\\u005f\\u005f":{"a":1}}`,
        `{${base}${sep}"prototype":{}}`,
      ]);
      break;
    }
    case "utf8": {
      const json = Buffer.from(JSON.stringify(valid()));
      const bad = Buffer.from(rng.pick([[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc0, 0xaf], [0x80], [0xfe, 0xff]]));
      const at = json.indexOf('"', json.indexOf(":") + 1) + 1 || 1;
      text = Buffer.concat([json.subarray(0, at), bad, json.subarray(at)]);
      break;
    }
    case "numbers": {
      const body = valid();
      const props = Object.keys(c.inputSchema?.properties ?? {});
      const raw = rng.pick(["1e309", "-1e309", "1.0", "-0", "9007199254740993", "1".repeat(400), "0.0000000000000000000001", "1E2", "01"]);
      text = JSON.stringify({ ...body, [props.length > 0 ? rng.pick(props) : "x"]: "__RAW__" }).replace('"__RAW__"', raw);
      break;
    }
  }
  d.body = typeof text === "string" ? Buffer.from(text) : text;
  if (!d.headers.some(([n]) => n === "content-type")) header(d, "content-type", "application/json");
  if (d.method === "GET" || d.method === "HEAD" || d.method === "DELETE" || d.method === "OPTIONS") {
    if (rng.chance(0.6)) d.method = rng.pick(c.collectionMethods.includes("POST") ? ["POST", "PUT", "PATCH"] : ["PUT", "PATCH"]);
  }
}

function mutateOtherHeaders(_ctx: CaseContext, rng: Rng, d: Draft): void {
  const kind = rng.pick(["expect", "host", "range", "conditional", "forwarded", "many", "connection", "te", "cookie"] as const);
  d.labels.push(`header ${kind}`);
  switch (kind) {
    case "expect":
      header(d, "expect", rng.pick(["100-continue", "200-ok", "junk", ""]));
      break;
    case "host":
      header(d, "host", rng.pick(["", "evil.example", "a".repeat(1000), "127.0.0.1:1", "[::1]", "x y", "localhost:99999"]));
      break;
    case "range":
      header(d, "range", rng.pick(["bytes=0-1", "bytes=-1", "bytes=1-0", "junk", "bytes=0-1,2-3,4-5"]));
      break;
    case "conditional":
      header(d, rng.pick(["if-none-match", "if-match", "if-modified-since", "if-unmodified-since"]), rng.pick(["*", '"x"', "W/\"x\"", "junk", "Thu, 01 Jan 1970 00:00:00 GMT"]));
      break;
    case "forwarded":
      header(d, rng.pick(["x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "forwarded"]), rng.pick(["1.2.3.4", "https", "evil.example", "for=1.2.3.4;proto=https", "junk,,,"]));
      break;
    case "many":
      for (let i = 0; i < rng.pick([50, 90, 200]); i++) d.headers.push([`x-h${i}`, rng.word(1, 20)]);
      break;
    case "connection":
      header(d, "connection", rng.pick(["close", "upgrade", "keep-alive, upgrade", "junk"]));
      if (rng.chance(0.5)) header(d, "upgrade", rng.pick(["websocket", "h2c", "junk"]));
      break;
    case "te":
      header(d, "te", rng.pick(["trailers", "gzip", "junk"]));
      break;
    case "cookie":
      header(d, "cookie", rng.pick(["a=b", "__proto__=x", "a".repeat(5000)]));
      break;
  }
}

/** Raw bytes on a fresh socket: request lines, header bytes and framing that no HTTP client sends. */
function rawCase(ctx: CaseContext, rng: Rng, index: number): RawCase {
  const { basePath, keys, model } = ctx;
  const c = rng.pick(model.collections);
  const p = `${basePath}${c.path}`;
  const auth = `Authorization: Bearer ${keys.write}\r\n`;
  const crlf = "\r\n";
  const kind = rng.weighted([
    [3, "request-line"],
    [3, "header-bytes"],
    [2, "oversized"],
    [2, "framing"],
    [1, "binary"],
    [2, "trickle"],
    [1, "unicode-path"],
    [1, "method"],
    [1, "pipeline"],
  ] as const);
  const labels = [`raw ${kind}`];
  let text: string | Buffer = "";
  let delayMs = 0;
  let chunks: Buffer[] | undefined;
  let head = false;
  switch (kind) {
    case "request-line":
      text = rng.pick([
        `GET${crlf}${crlf}`,
        `GET ${p}${crlf}${crlf}`,
        `GET ${p} HTTP/9.9${crlf}Host: x${crlf}${crlf}`,
        `GET ${p} HTTP/1.1 extra${crlf}Host: x${crlf}${crlf}`,
        `GET  ${p}  HTTP/1.1${crlf}Host: x${crlf}${crlf}`,
        `GET ${p} http/1.1${crlf}Host: x${crlf}${crlf}`,
        ` GET ${p} HTTP/1.1${crlf}Host: x${crlf}${crlf}`,
        `GET ${p}\tHTTP/1.1${crlf}Host: x${crlf}${crlf}`,
        `GET ${p} HTTP/1.1\n\n`,
        `GET ${p} HTTP/1.1${crlf}${crlf}`,
        `GET ${p} HTTP/1.0${crlf}${crlf}`,
        `GET ${p} HTTP/0.9${crlf}${crlf}`,
        `GET http://evil.example${p} HTTP/1.1${crlf}Host: x${crlf}${crlf}`,
        `GET * HTTP/1.1${crlf}Host: x${crlf}${crlf}`,
        `OPTIONS * HTTP/1.1${crlf}Host: x${crlf}${crlf}`,
        `GET ${p}#frag HTTP/1.1${crlf}Host: x${crlf}${crlf}`,
        `GET ${p}/a b HTTP/1.1${crlf}Host: x${crlf}${crlf}`,
        `GET ${p}\x00 HTTP/1.1${crlf}Host: x${crlf}${crlf}`,
        `GET ${p}\x7f HTTP/1.1${crlf}Host: x${crlf}${crlf}`,
        `CONNECT 127.0.0.1:22 HTTP/1.1${crlf}Host: x${crlf}${crlf}`,
        `${crlf}${crlf}${crlf}GET ${p} HTTP/1.1${crlf}Host: x${crlf}${auth}${crlf}`,
      ]);
      break;
    case "header-bytes":
      text = `GET ${p} HTTP/1.1${crlf}Host: x${crlf}${auth}${rng.pick([
        `X-A: \x00${crlf}`,
        `X-A: a\rb${crlf}`,
        `X-A: a\x01b${crlf}`,
        `X-A: a\x7fb${crlf}`,
        `X A: b${crlf}`,
        `X-A : b${crlf}`,
        `: b${crlf}`,
        `X-A${crlf}`,
        `X-(A): b${crlf}`,
        `X-A: b${crlf} folded${crlf}`,
        `\tX-A: b${crlf}`,
        `X-A: b\n`,
        `X-A: é${crlf}`,
        `X-\xe9: b${crlf}`,
        `Content-Length: 1${crlf}Content-Length: 2${crlf}`,
        `Content-Length: -1${crlf}`,
        `Content-Length: abc${crlf}`,
        `Content-Length: 1${crlf}Transfer-Encoding: chunked${crlf}`,
        `Transfer-Encoding: gzip${crlf}`,
        `Transfer-Encoding: chunked, identity${crlf}`,
        `Host: y${crlf}`,
        `Accept: \xff\xfe${crlf}`,
        `Authorization: Bearer \x00${crlf}`,
      ])}${crlf}`;
      text = Buffer.from(text, "latin1");
      break;
    case "oversized":
      text = rng.pick([
        `GET ${p}?${"a".repeat(20_000)} HTTP/1.1${crlf}Host: x${crlf}${crlf}`,
        `GET ${p} HTTP/1.1${crlf}Host: x${crlf}X-Big: ${"b".repeat(20_000)}${crlf}${crlf}`,
        `GET ${p} HTTP/1.1${crlf}Host: x${crlf}${Array.from({ length: 3000 }, (_, i) => `X-${i}: v${crlf}`).join("")}${crlf}`,
        `GET ${p} HTTP/1.1${crlf}Host: x${crlf}${auth}Cookie: ${"c".repeat(17_000)}${crlf}${crlf}`,
        `GET /${"a".repeat(70_000)} HTTP/1.1${crlf}Host: x${crlf}${crlf}`,
      ]);
      break;
    case "framing": {
      const body = '{"name":"framed"}';
      text = `POST ${p} HTTP/1.1${crlf}Host: x${crlf}${auth}Content-Type: application/json${crlf}${rng.pick([
        `Transfer-Encoding: chunked${crlf}${crlf}zz${crlf}${body}${crlf}0${crlf}${crlf}`,
        `Transfer-Encoding: chunked${crlf}${crlf}${body.length.toString(16)};ext=1${crlf}${body}${crlf}0${crlf}${crlf}`,
        `Transfer-Encoding: chunked${crlf}${crlf}${body.length.toString(16)}${crlf}${body}${crlf}0${crlf}X-Trailer: 1${crlf}${crlf}`,
        `Transfer-Encoding: chunked${crlf}${crlf}ffffffffffffffff${crlf}${body}${crlf}0${crlf}${crlf}`,
        `Transfer-Encoding: chunked${crlf}${crlf}-1${crlf}${body}${crlf}0${crlf}${crlf}`,
        `Content-Length: ${body.length - 5}${crlf}${crlf}${body}`,
        `Content-Length: ${body.length}${crlf}Content-Length: ${body.length}${crlf}${crlf}${body}`,
        `Content-Length: 0${crlf}${crlf}`,
        `Content-Length: ${body.length}${crlf}${crlf}${body}GET ${p} HTTP/1.1${crlf}Host: x${crlf}${crlf}`,
        `Transfer-Encoding: chunked${crlf}Content-Length: 3${crlf}${crlf}0${crlf}${crlf}`,
      ])}`;
      break;
    }
    case "binary":
      text = Buffer.from(Array.from({ length: rng.between(1, 200) }, () => rng.int(256)));
      text = Buffer.concat([text, Buffer.from(`${crlf}${crlf}`)]);
      break;
    case "trickle": {
      const body = JSON.stringify({ name: `trickle ${rng.word()}` });
      const full = Buffer.from(`POST ${p} HTTP/1.1${crlf}Host: x${crlf}${auth}Content-Type: application/json${crlf}Content-Length: ${Buffer.byteLength(body)}${crlf}Connection: close${crlf}${crlf}${body}`);
      const pieces = rng.between(5, 20);
      chunks = [];
      const size = Math.ceil(full.length / pieces);
      for (let i = 0; i < full.length; i += size) chunks.push(full.subarray(i, i + size));
      delayMs = rng.between(5, 40);
      break;
    }
    case "unicode-path":
      text = Buffer.concat([Buffer.from(`GET ${p}/`), Buffer.from(rng.pick(["名前", "é", "\u202e", "𝕏", "\u0000"]), "utf8"), Buffer.from(` HTTP/1.1${crlf}Host: x${crlf}${auth}${crlf}`)]);
      break;
    case "method": {
      const m = rng.pick(["get", "G E T", "GET\x00", "GÉT", "FOO", "QUERY", "TRACE", "PROPFIND", "PRI", "CONNECT", "\x16\x03\x01", "HEAD"]);
      head = m === "HEAD";
      text = Buffer.from(`${m} ${p} HTTP/1.1${crlf}Host: x${crlf}${auth}${crlf}`, "latin1");
      labels.push(`method ${JSON.stringify(m)}`);
      break;
    }
    case "pipeline":
      text = `GET ${p} HTTP/1.1${crlf}Host: x${crlf}${auth}${crlf}`.repeat(rng.between(2, 50)) + `BAD${crlf}${crlf}`;
      break;
  }
  return { kind: "raw", index, labels, chunks: chunks ?? [typeof text === "string" ? Buffer.from(text, "latin1") : text], delayMs, head };
}

// ---------------------------------------------------------------- sending

/** What came back: an HTTP answer, or why none did. */
export interface Reply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
  /** The body was longer than the cap: only its start is kept. */
  readonly truncated?: boolean;
  /** No answer: an error of the client, the socket closed, or the timeout passed. */
  readonly error?: string;
  /**
   * The case answered before on the same kept-alive connection, with an error that did not say
   * `Connection: close`, when this case met a reset there (and was sent again alone): the server may have
   * closed the connection after that answer (see closesSilently).
   */
  readonly suspect?: HttpCase;
}

const BODY_CAP = 32 * 1024 * 1024;

/** Sends an HttpCase with node:http (keep-alive `agent`); a request node:http refuses to build goes out raw. */
/** The case last sent on each kept-alive socket (and when its answer ended), to blame an answer after which the server closed the connection. */
interface Previous {
  readonly case: HttpCase;
  endedAt: number;
  /** Its answer's status, and whether the answer said Connection: close. */
  status: number;
  said: boolean;
}
const lastOnSocket = new WeakMap<net.Socket, Previous>();
const before = new WeakMap<http.ClientRequest, Previous>();
/**
 * A connection idle this long may have met the server's keep-alive timeout just as it was reused (a race
 * every keep-alive client has): its reset blames nobody. Under the fuzzer's load a connection is reused
 * within milliseconds.
 */
const IDLE_MS = 5000;
/** An agent without keep-alive, for a case retried after a closed connection. */
const fresh = new http.Agent({ keepAlive: false });

export function sendHttp(origin: URL, agent: http.Agent, c: HttpCase, timeoutMs: number): Promise<Reply> {
  const slot: Previous = { case: c, endedAt: Number.POSITIVE_INFINITY, status: 0, said: false };
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of c.headers) {
    const key = name.toLowerCase();
    const prev = headers[key];
    headers[key] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value];
  }
  const chunked = headers["transfer-encoding"] !== undefined;
  if (c.body !== undefined && !chunked) headers["content-length"] = String(c.body.length);
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: Reply) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(r);
      }
    };
    const timer = setTimeout(() => {
      // For triage: a stall on a reused connection may be the doing of the request before on it.
      const previous = req ? before.get(req) : undefined;
      const after = previous ? ` [on a connection reused after case ${previous.case.index}, ${previous.status}${previous.said ? " with Connection: close" : ""}]` : "";
      req?.destroy();
      done({ status: 0, headers: {}, body: Buffer.alloc(0), error: `no answer within ${timeoutMs} ms${after}` });
    }, timeoutMs);
    let req: http.ClientRequest | undefined;
    try {
      req = http.request({ host: origin.hostname, port: origin.port, method: c.method, path: c.path, headers, agent, setHost: headers.host === undefined }, (res) => {
        slot.status = res.statusCode ?? 0;
        slot.said = /\bclose\b/i.test(String(res.headers.connection ?? ""));
        const parts: Buffer[] = [];
        let size = 0;
        let truncated = false;
        res.on("data", (d: Buffer) => {
          size += d.length;
          if (size <= BODY_CAP) parts.push(d);
          else if (!truncated) {
            truncated = true;
            res.destroy();
            done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts), truncated: true });
          }
        });
        res.on("end", () => {
          slot.endedAt = performance.now();
          done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) });
        });
        res.on("error", (err) => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts), error: `response: ${err.message}` }));
      });
    } catch {
      // node:http validates methods, paths and header values: such a request goes out as raw bytes.
      clearTimeout(timer);
      settled = true;
      sendRaw(origin, { kind: "raw", index: c.index, labels: c.labels, chunks: [rawBytes(c)], delayMs: 0, head: c.method === "HEAD" }, timeoutMs).then(resolve);
      return;
    }
    req.on("error", (err) => {
      const code = (err as NodeJS.ErrnoException).code ?? err.message;
      // A socket a queued request takes over when it is freed is reused too, though reusedSocket is false then.
      const reused = req!.reusedSocket || before.has(req!);
      if (reused && !settled && (code === "ECONNRESET" || code === "EPIPE")) {
        // The server closed a kept-alive connection after the previous answer on it, or because of this
        // request: this case goes again on a connection of its own.
        // Suspect: an error answer that did not announce a close, on a connection reused at once. A reset
        // after a success is this case's own (the server answered early and reset a connection with
        // unread body) or the keep-alive race: it goes again alone and is judged on that.
        const previous = before.get(req!);
        const suspect = previous && previous.status >= 400 && !previous.said && performance.now() - previous.endedAt < IDLE_MS ? previous.case : undefined;
        settled = true;
        clearTimeout(timer);
        sendHttp(origin, fresh, c, timeoutMs).then((r) => resolve(suspect ? { ...r, suspect } : r));
        return;
      }
      done({ status: 0, headers: {}, body: Buffer.alloc(0), error: `request: ${code} (${err.message})` });
    });
    req.on("socket", (socket) => {
      // Read before this case takes the socket over: an error on a reused socket blames the case before.
      const previous = lastOnSocket.get(socket);
      lastOnSocket.set(socket, slot);
      if (previous) before.set(req!, previous);
    });
    if (c.body !== undefined) req.end(c.body);
    else req.end();
  });
}

/** The bytes of an HttpCase as one HTTP/1.1 request (asking the server to close after it, unless `keepAlive`). */
export function rawBytes(c: HttpCase, keepAlive = false): Buffer {
  const lines = [`${c.method} ${c.path} HTTP/1.1`];
  if (!c.headers.some(([n]) => n.toLowerCase() === "host")) lines.push("Host: fuzz");
  for (const [n, v] of c.headers) lines.push(`${n}: ${v}`);
  if (c.body !== undefined && !c.headers.some(([n]) => n.toLowerCase() === "content-length")) lines.push(`Content-Length: ${c.body.length}`);
  if (!keepAlive) lines.push("Connection: close");
  lines.push("", "");
  return Buffer.concat([Buffer.from(lines.join("\r\n"), "latin1"), c.body ?? Buffer.alloc(0)]);
}

/**
 * Sends `c` alone on a kept-alive connection and reports whether the server closes that connection after
 * its answer although the answer did not say `Connection: close` (a keep-alive client's next request on
 * it is then reset).
 */
export function closesSilently(origin: URL, c: HttpCase, waitMs = 300): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: origin.hostname, port: Number(origin.port) });
    let buf = Buffer.alloc(0);
    let answered: Reply | undefined;
    let settled = false;
    const done = (v: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(limit);
      socket.destroy();
      resolve(v);
    };
    const limit = setTimeout(() => done(false), 10_000);
    socket.on("error", () => {
      /* judged on close */
    });
    socket.on("data", (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (answered) return;
      answered = parseResponse(buf, c.method === "HEAD", false);
      if (!answered) return;
      if (/\bclose\b/i.test(String(answered.headers.connection ?? ""))) done(false);
      else setTimeout(() => done(false), waitMs);
    });
    socket.on("close", () => done(answered !== undefined && !/\bclose\b/i.test(String(answered.headers.connection ?? ""))));
    socket.on("connect", () => socket.write(rawBytes(c, true)));
  });
}

/** Parses the first HTTP response in `buf`, or undefined while it is incomplete (`ended`: the socket closed). */
export function parseResponse(buf: Buffer, head: boolean, ended: boolean): Reply | undefined {
  const end = buf.indexOf("\r\n\r\n");
  if (end < 0) return ended && buf.length > 0 ? { status: 0, headers: {}, body: buf, error: `garbled answer: ${JSON.stringify(buf.subarray(0, 80).toString("latin1"))}` } : undefined;
  const lines = buf.subarray(0, end).toString("latin1").split("\r\n");
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "");
  if (!m) return { status: 0, headers: {}, body: buf, error: `garbled status line: ${JSON.stringify(lines[0])}` };
  const status = Number(m[1]);
  const headers: Record<string, string | string[]> = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(":");
    if (i <= 0) continue;
    const k = line.slice(0, i).trim().toLowerCase();
    const v = line.slice(i + 1).trim();
    const prev = headers[k];
    headers[k] = prev === undefined ? v : [...(Array.isArray(prev) ? prev : [prev]), v];
  }
  if (status === 100) return parseResponse(buf.subarray(end + 4), head, ended);
  const rest = buf.subarray(end + 4);
  if (head || status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0) };
  const length = headers["content-length"];
  if (typeof length === "string") {
    const n = Number(length);
    if (rest.length >= n) return { status, headers, body: rest.subarray(0, n) };
    return ended ? { status, headers, body: rest, error: "answer shorter than its Content-Length" } : undefined;
  }
  if (String(headers["transfer-encoding"] ?? "").includes("chunked")) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const eol = rest.indexOf("\r\n", at);
      if (eol < 0) return ended ? { status, headers, body: Buffer.concat(parts), error: "truncated chunked answer" } : undefined;
      const size = parseInt(rest.subarray(at, eol).toString("latin1"), 16);
      if (size === 0) return { status, headers, body: Buffer.concat(parts) };
      if (rest.length < eol + 2 + size + 2) return ended ? { status, headers, body: Buffer.concat(parts), error: "truncated chunked answer" } : undefined;
      parts.push(rest.subarray(eol + 2, eol + 2 + size));
      at = eol + 2 + size + 2;
    }
  }
  return ended ? { status, headers, body: rest } : undefined;
}

/** Writes a RawCase to a fresh socket and reads the first answer. */
export function sendRaw(origin: URL, c: RawCase, timeoutMs: number): Promise<Reply> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: origin.hostname, port: Number(origin.port) });
    let buf = Buffer.alloc(0);
    let settled = false;
    const done = (r: Reply) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => done({ status: 0, headers: {}, body: buf, error: `no answer within ${timeoutMs} ms` }), timeoutMs);
    socket.on("error", () => {
      /* EPIPE / ECONNRESET after the server answered and closed: the answer, if any, is in buf */
    });
    socket.on("data", (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const r = parseResponse(buf, !!c.head, false);
      if (r) done(r);
    });
    socket.on("close", () => done(parseResponse(buf, !!c.head, true) ?? { status: 0, headers: {}, body: buf, error: "closed without an answer" }));
    socket.on("connect", async () => {
      for (let i = 0; i < c.chunks.length && !settled; i++) {
        if (i > 0 && c.delayMs > 0) await new Promise((r) => setTimeout(r, c.delayMs));
        if (!socket.destroyed) socket.write(c.chunks[i]!);
      }
    });
  });
}

// ---------------------------------------------------------------- checking

export interface CheckContext {
  readonly errorTypes: readonly string[];
  readonly errorDocsUrl: string;
}

/** What is wrong with `r` as an answer to `c` under the contract; [] when nothing is. */
export function problemsOf(c: Case, r: Reply, ctx: CheckContext): string[] {
  const problems: string[] = [];
  if (r.error !== undefined && r.status === 0) {
    // A raw case the server closed without answering is not counted (nothing to check); a stall is.
    if (c.kind === "raw" && r.error === "closed without an answer") return [];
    return [`no answer: ${r.error}`];
  }
  if (r.error !== undefined) problems.push(`broken answer (${r.error})`);
  const expect = c.kind === "http" ? c.expect : undefined;
  if (expect?.statuses && !expect.statuses.includes(r.status)) problems.push(`not ${expect.statuses.join(" or ")} for ${expect.rule} [${expect.detail}]`);
  if (expect?.never2xx && r.status >= 200 && r.status < 300) problems.push(`a success for ${expect.rule} [${expect.detail}]`);
  if (r.status >= 500) problems.push(`${r.status}`);
  if (r.truncated) problems.push(`an answer over ${BODY_CAP / 1024 / 1024} MB`);
  const head = c.kind === "http" ? c.method === "HEAD" : !!c.head;
  if (r.status >= 400) problems.push(...errorAnswerProblems(r, ctx, head));
  return problems;
}

/**
 * What is wrong with an error answer (4xx/5xx) under the contract: its Content-Type (JSON or the vendor
 * error type) and its body `{status, code, property, message, dev, info}` (none for a HEAD).
 */
export function errorAnswerProblems(r: Reply, ctx: CheckContext, head = false): string[] {
  const problems: string[] = [];
  const type = String(r.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (!["application/json", ...ctx.errorTypes.map((t) => t.toLowerCase())].includes(type)) {
    problems.push(`error answer of type "${r.headers["content-type"] ?? "(none)"}"`);
  }
  if (head) return problems;
  let body: any;
  try {
    body = JSON.parse(r.body.toString("utf8"));
  } catch {
    problems.push(`error body is not JSON: ${JSON.stringify(r.body.subarray(0, 60).toString("latin1"))}`);
    return problems;
  }
  const keys = body && typeof body === "object" && !Array.isArray(body) ? Object.keys(body).sort().join(",") : typeof body;
  if (keys !== "code,dev,info,message,property,status") problems.push(`error body keys ${keys}, not code,dev,info,message,property,status`);
  else {
    if (body.status !== r.status) problems.push(`error body status ${body.status} on a ${r.status}`);
    if (!Number.isInteger(body.code)) problems.push(`error body code ${JSON.stringify(body.code)}`);
    if (body.info !== `${ctx.errorDocsUrl}/${body.code}`) problems.push(`error body info ${JSON.stringify(body.info)}`);
    for (const k of ["property", "message", "dev"]) if (typeof body[k] !== "string") problems.push(`error body ${k} is not a string`);
  }
  return problems;
}

// ---------------------------------------------------------------- reproduction

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A shell line that sends `c` again (secrets replaced by $WRITE_KEY / $READ_KEY). */
export function reproduction(c: Case, origin: string, keys: Keys): string {
  const hide = (s: string) => s.split(keys.write).join("$WRITE_KEY").split(keys.read).join("$READ_KEY");
  const printable = (b: Buffer) => {
    let out = "";
    for (const byte of b.subarray(0, 300)) out += byte >= 0x20 && byte < 0x7f && byte !== 0x5c && byte !== 0x27 && byte !== 0x25 ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, "0")}`;
    return b.length > 300 ? `${out}… (${b.length} bytes in all)` : out;
  };
  const u = new URL(origin);
  if (c.kind === "raw") {
    return `exec 3<>/dev/tcp/${u.hostname}/${u.port}; printf '${hide(printable(Buffer.concat([...c.chunks])))}' >&3; timeout 3 cat <&3; exec 3<&-`;
  }
  const parts = ["curl -sS -i --path-as-is", "-X", shellQuote(c.method), shellQuote(hide(`${origin}${c.path}`))];
  for (const [n, v] of c.headers) parts.push("-H", `"${hide(`${n}: ${v}`).replace(/"/g, '\\"')}"`);
  if (c.body !== undefined) return `printf '${hide(printable(c.body))}' | ${parts.join(" ")} --data-binary @-`;
  return parts.join(" ");
}

// ---------------------------------------------------------------- running

/** The resident set size of a process in kB, from /proc/<pid>/status (undefined where there is no /proc). */
export function rssKb(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+)\s*kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

export interface FuzzOptions {
  /** The base URL the service was started with (BASE_URL), e.g. http://127.0.0.1:4000/v2. */
  readonly baseUrl: string;
  readonly openapi: any;
  readonly keys: Keys;
  readonly seed: number;
  readonly requests: number;
  readonly concurrency?: number;
  /** The service's process id, for RSS samples. */
  readonly pid?: number;
  /** Only these case indexes (a replay). */
  readonly only?: readonly number[];
  /** Instances created per collection before the run. */
  readonly instances?: number;
  readonly timeoutMs?: number;
  /** Called every `requests / 20` cases with the count sent so far. */
  readonly progress?: (sent: number, report: FuzzReport) => void;
}

export interface Failure {
  readonly index: number;
  readonly labels: readonly string[];
  readonly problems: readonly string[];
  readonly status: number;
  readonly body: string;
  readonly repro: string;
}

export interface FuzzReport {
  readonly seed: number;
  sent: number;
  readonly statuses: Record<string, number>;
  /** Failures grouped by class (the first problem and the case's first label); a few examples each. */
  readonly classes: Map<string, { count: number; examples: Failure[] }>;
  failed: number;
  /** [cases sent, RSS kB] samples of the service. */
  readonly rss: [number, number][];
  /** The slowest cases (time to the whole answer), slowest first. */
  readonly slowest: { index: number; ms: number; status: number; labels: readonly string[]; repro: string }[];
  durationMs: number;
}

/** Creates `n` instances per collection (links first), so that cases have ids to use. */
export async function seedInstances(model: ServiceModel, baseUrl: string, keys: Keys, n: number, seed: number): Promise<Pools> {
  const pools: Pools = { stable: new Map(), fresh: new Map(), baseUrl };
  const rng = new Rng(seed ^ 0x5eed);
  for (let round = 0; round < 4; round++) {
    for (const c of model.collections) {
      if (!c.collectionMethods.includes("POST") || !c.inputSchema) continue;
      const ids = pools.stable.get(c.name) ?? [];
      pools.stable.set(c.name, ids);
      for (let tries = 0; ids.length < n && tries < n * 4; tries++) {
        const body = sampleValid(model.doc, c.inputSchema, rng, pools, c.links);
        const res = await fetch(`${baseUrl}${c.path}`, { method: "POST", headers: { authorization: `Bearer ${keys.write}`, "content-type": "application/json", accept: "application/json" }, body: JSON.stringify(body) });
        const json = (await res.json().catch(() => ({}))) as { id?: string };
        if (res.status === 201 && json.id) ids.push(json.id);
        else if (res.status >= 500) throw new Error(`seeding ${c.path}: ${res.status} ${JSON.stringify(json)}`);
      }
    }
  }
  return pools;
}

/** Runs the fuzzer against a started service. Never throws on a bad answer: failures are in the report. */
export async function runFuzz(o: FuzzOptions): Promise<FuzzReport> {
  const model = modelOf(o.openapi);
  const base = new URL(o.baseUrl);
  const origin = new URL(base.origin);
  const basePath = base.pathname.replace(/\/+$/, "");
  const pools = await seedInstances(model, o.baseUrl.replace(/\/+$/, ""), o.keys, o.instances ?? 6, o.seed);
  const ctx: CaseContext = { model, pools, keys: o.keys, basePath };
  const check: CheckContext = { errorTypes: model.errorTypes, errorDocsUrl: model.errorDocsUrl };
  const concurrency = o.concurrency ?? 16;
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const timeoutMs = o.timeoutMs ?? 15_000;
  const report: FuzzReport = { seed: o.seed, sent: 0, statuses: {}, classes: new Map(), failed: 0, rss: [], slowest: [], durationMs: 0 };
  const indexes = o.only ?? Array.from({ length: o.requests }, (_, i) => i);
  const every = Math.max(1, Math.floor(indexes.length / 20));
  const sample = () => {
    const kb = o.pid === undefined ? undefined : rssKb(o.pid);
    if (kb !== undefined) report.rss.push([report.sent, kb]);
  };
  sample();
  const t0 = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < indexes.length) {
      const index = indexes[next++]!;
      const c = makeCase(ctx, o.seed, index);
      const started = performance.now();
      const r = c.kind === "http" ? await sendHttp(origin, agent, c, timeoutMs) : await sendRaw(origin, c, timeoutMs);
      const ms = performance.now() - started;
      report.sent++;
      if (report.slowest.length < 10 || ms > report.slowest[report.slowest.length - 1]!.ms) {
        report.slowest.push({ index, ms: Math.round(ms), status: r.status, labels: c.labels, repro: reproduction(c, origin.origin, o.keys) });
        report.slowest.sort((a, b) => b.ms - a.ms);
        report.slowest.length = Math.min(report.slowest.length, 10);
      }
      if (report.sent % every === 0) {
        sample();
        o.progress?.(report.sent, report);
      }
      const key = r.status === 0 ? "none" : String(r.status);
      report.statuses[key] = (report.statuses[key] ?? 0) + 1;
      if (c.kind === "http" && c.method === "POST" && r.status === 201) {
        try {
          const created = JSON.parse(r.body.toString("utf8")) as { id?: string; meta?: { href?: string } };
          const col = model.collections.find((x) => created.meta?.href?.includes(`${basePath}${x.path}/`));
          if (col && created.id) {
            const fresh = pools.fresh.get(col.name) ?? [];
            if (fresh.length < 500) fresh.push(created.id);
            else fresh[report.sent % 500] = created.id;
            pools.fresh.set(col.name, fresh);
          }
        } catch {
          /* not JSON: problemsOf does not judge 2xx bodies */
        }
      }
      if (r.suspect && (await closesSilently(origin, r.suspect))) {
        record(r.suspect, { status: 0, headers: {}, body: Buffer.alloc(0) }, ["connection closed after this answer, which did not say Connection: close (the next request on it was reset)"]);
      }
      const problems = problemsOf(c, r, check);
      record(c, r, problems);
    }
  };
  const record = (c: Case, r: Reply, problems: readonly string[]) => {
    if (problems.length === 0) return;
    report.failed++;
    // A class: the first problem and the status; its examples are kept for distinct mutation lists.
    const cls = `${r.status || "no answer"}: ${problems[0]!.replace(/ \[.*\]$/, "")}`;
    const entry = report.classes.get(cls) ?? { count: 0, examples: [] };
    entry.count++;
    const labels = c.labels.join(" + ");
    if (entry.examples.length < 5 && !entry.examples.some((e) => e.labels.join(" + ") === labels)) {
      entry.examples.push({ index: c.index, labels: c.labels, problems, status: r.status, body: r.body.subarray(0, 300).toString("utf8"), repro: reproduction(c, origin.origin, o.keys) });
    }
    report.classes.set(cls, entry);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, indexes.length) }, worker));
  report.durationMs = Date.now() - t0;
  sample();
  agent.destroy();
  return report;
}

/** A readable summary of a report: counts, statuses, RSS and every failure class with its examples. */
export function describeReport(r: FuzzReport, limit = 40, perClass = 2): string {
  const lines = [
    `fuzz seed ${r.seed}: ${r.sent} requests in ${(r.durationMs / 1000).toFixed(1)} s, ${r.failed} failed (replay a case: FUZZ_SEED=${r.seed} FUZZ_CASE=<index>)`,
    `statuses: ${Object.entries(r.statuses).sort().map(([s, n]) => `${s}×${n}`).join(" ")}`,
  ];
  if (r.slowest.length > 0) lines.push(`slowest: ${r.slowest.slice(0, 5).map((x) => `case ${x.index} ${x.ms} ms (${x.status}; ${x.labels.join(" + ")})`).join(", ")}`);
  if (r.rss.length > 0) lines.push(`RSS (kB) by requests sent: ${r.rss.map(([n, kb]) => `${n}:${kb}`).join(" ")}`);
  const classes = [...r.classes.entries()].sort((a, b) => b[1].count - a[1].count);
  for (const [cls, { count, examples }] of classes.slice(0, limit)) {
    lines.push(`- ${count} × ${cls}`);
    for (const e of examples.slice(0, perClass)) lines.push(`    case ${e.index} (${e.labels.join(" + ")}): ${e.problems.join("; ")}; body ${JSON.stringify(e.body.slice(0, 160))}`, `      ${e.repro.slice(0, 400)}`);
  }
  if (classes.length > limit) lines.push(`… and ${classes.length - limit} more classes`);
  return lines.join("\n");
}

// ---------------------------------------------------------------- the package under test

export interface PreparedService {
  /** The generated package's folder. */
  readonly dir: string;
  readonly openapi: any;
  readonly write: { readonly id: string; readonly secret: string };
  readonly read: { readonly id: string; readonly secret: string };
}

/**
 * Generates `definitions` (default: examples/library) into `dir` with the built CLI, shares the repo's
 * node_modules, writes a handler for each action (so that none answers the 501 of an unwritten
 * handler), builds it with tsc and creates a write key and a read key with its keys CLI (with `env`: e.g. a
 * DATABASE_URL, so that the keys are made where the service will read them).
 */
export function prepareService(repoRoot: string, dir: string, options: { definitions?: string; writeRoles?: string; readRoles?: string; env?: NodeJS.ProcessEnv } = {}): PreparedService {
  const run = (cmd: string, args: string[], cwd: string) => {
    const r = spawnSync(cmd, args, { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...options.env } });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${r.stderr}${r.stdout}`);
    return r.stdout;
  };
  run(process.execPath, [path.join(repoRoot, "bin/run.js"), "generate", path.join(repoRoot, options.definitions ?? "examples/library"), "--out", dir], repoRoot);
  const modules = path.join(dir, "node_modules");
  if (!fs.existsSync(modules)) fs.symlinkSync(path.join(repoRoot, "node_modules"), modules, "dir");
  const actionsDir = path.join(dir, "src/actions");
  for (const file of fs.existsSync(actionsDir) ? fs.readdirSync(actionsDir) : []) {
    if (!file.endsWith(".ts")) continue;
    const source = fs.readFileSync(path.join(actionsDir, file), "utf8");
    // The user's side of an action: answer something valid instead of the placeholder's 501.
    const answered = source.replace(/^\s*throw (?:apiError|ctx\.error)\("notImplemented"[^\n]*\n/m, "  return {} as never;\n");
    fs.writeFileSync(path.join(actionsDir, file), answered.replace(/^import \{ apiError \}[^\n]*\n/m, ""));
  }
  run(process.execPath, [path.join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], dir);
  const key = (roles: string) => JSON.parse(run(process.execPath, ["dist/src/generated/runtime/keys-cli.js", "create", "--roles", roles], dir).trim().split("\n").pop()!) as { id: string; secret: string };
  const openapi = JSON.parse(fs.readFileSync(path.join(dir, "docs/openapi.json"), "utf8"));
  return { dir, openapi, write: key(options.writeRoles ?? "librarian"), read: key(options.readRoles ?? "reader") };
}
