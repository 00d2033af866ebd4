/**
 * What changed between two wire contracts (contract.ts), version by version, each change classified by the
 * direction a client meets it in, as oasdiff and buf do: what a client sends may only get looser (a new
 * required property, a narrower type or enum, a stricter limit, a new unique key or stricter access
 * breaks the clients that send), what it reads may not change shape (a property removed or renamed, a
 * type changed, a new enum value breaks the clients that read). A property of a resource is both sent and
 * read, so most changes to it break one side or the other; a new optional property, a looser limit, a new
 * collection or action, and changed wording are compatible.
 *
 * Shared schemas are compared once each, by name: a change inside one is reported at its own definition, as
 * breaking the clients of the properties, parameters and responses that use it (directly or through other
 * shared schemas), never once per path that reaches it. A reference that names another shared schema than
 * before is a change unless the two are alike.
 */
import { DATA_KEYWORDS, sharedRefsOf, type ContractOrigin, type WireAction, type WireContract, type WireContractV1, type WireProperty, type WireResource, type WireShared, type WireVersion } from "./contract.js";

/** One difference between the recorded contract and the new one. */
export interface ContractChange {
  readonly breaking: boolean;
  readonly version: number;
  /** The collection or action, and the property below it: "books", "books.title", "lookup.isbn". */
  readonly subject: string;
  /** What changed, as a clause: `property "title" was removed`. */
  readonly what: string;
  /** For a breaking change, the clients it breaks: "clients of version 1 that read books". */
  readonly clients: string;
  /** Where it is: in the new definitions when the changed thing is still there, else where the recorded contract had it. */
  readonly origin: ContractOrigin;
  /** Which definitions `origin` is in. */
  readonly side: "new" | "old";
}

type Found = { readonly breaking: boolean; readonly what: string; readonly reads: boolean; readonly sends: boolean };

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const shown = (v: unknown): string => {
  const text = JSON.stringify(v) ?? "nothing";
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
};

const orNone = (v: unknown): string => (v === undefined ? "none" : shown(v));

/** Lower bounds: a higher value is stricter. */
const LOWER = ["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"];
/** Upper bounds: a lower value is stricter. */
const UPPER = ["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"];
/** Keywords that only describe the value a request body gets when it leaves it out. */
const COMPATIBLE = new Set(["default"]);

/** The types a schema allows, sorted; undefined when it says none (any). */
function typesOf(schema: Record<string, unknown>): string[] | undefined {
  const t = schema.type;
  if (typeof t === "string") return [t];
  return Array.isArray(t) ? [...(t as string[])].sort() : undefined;
}

/**
 * The differences between two wire schemas of one value (`where`: how to name it in a sentence), each
 * classified: `sends` when it breaks what clients send, `reads` when it breaks what they read.
 */
export function compareSchemas(before: unknown, after: unknown, where: string, refs: SharedPair = NO_SHARED): Found[] {
  if (same(before, after)) return [];
  if (!isRecord(before) || !isRecord(after)) return [{ breaking: true, what: `${where} changed from ${shown(before)} to ${shown(after)}`, reads: true, sends: true }];
  const out: Found[] = [];
  const found = (breaking: boolean, what: string, side: { reads?: boolean; sends?: boolean } = {}) =>
    out.push({ breaking, what: `${where}: ${what}`, reads: side.reads ?? false, sends: side.sends ?? false });
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const key of keys) {
    const a = before[key];
    const b = after[key];
    if (same(a, b)) continue;
    if (key === "$ref" && typeof a === "string" && typeof b === "string" && refs.alike(a, b)) continue;
    if (key === "type") {
      const [ta, tb] = [typesOf(before), typesOf(after)];
      const lost = (ta ?? ["any"]).filter((t) => !(tb ?? ["any"]).includes(t));
      const gained = (tb ?? ["any"]).filter((t) => !(ta ?? ["any"]).includes(t));
      found(true, `type ${shown(a ?? "any")} became ${shown(b ?? "any")}`, { sends: lost.length > 0 || (tb !== undefined && ta === undefined), reads: gained.length > 0 || (ta !== undefined && tb === undefined) });
    } else if (key === "enum") {
      const [ea, eb] = [Array.isArray(a) ? a : undefined, Array.isArray(b) ? b : undefined];
      const removed = ea === undefined ? [] : ea.filter((v) => !(eb ?? []).some((w) => same(v, w)));
      const added = eb === undefined ? [] : eb.filter((v) => !(ea ?? []).some((w) => same(v, w)));
      if (ea === undefined) found(true, `values limited to ${shown(eb)}`, { sends: true });
      else if (eb === undefined) found(true, `values no longer limited to ${shown(ea)}`, { reads: true });
      else {
        if (removed.length > 0) found(true, `values ${shown(removed)} no longer allowed`, { sends: true });
        if (added.length > 0) found(true, `new values ${shown(added)}`, { reads: true });
      }
    } else if (LOWER.includes(key) || UPPER.includes(key)) {
      const lower = LOWER.includes(key);
      const stricter = b !== undefined && (a === undefined || (typeof a === "number" && typeof b === "number" && (lower ? b > a : b < a)));
      found(stricter, `${key} ${a === undefined ? "added" : b === undefined ? "removed" : "changed"} (${orNone(a)} → ${orNone(b)})`, stricter ? { sends: true } : {});
    } else if (key === "required") {
      const [ra, rb] = [Array.isArray(a) ? (a as string[]) : [], Array.isArray(b) ? (b as string[]) : []];
      const added = rb.filter((n) => !ra.includes(n));
      const removed = ra.filter((n) => !rb.includes(n));
      if (added.length > 0) found(true, `now requires ${shown(added)}`, { sends: true });
      if (removed.length > 0) found(true, `no longer requires ${shown(removed)} (an answer may leave it out)`, { reads: true });
    } else if (key === "properties" && isRecord(a) && isRecord(b)) {
      const required = new Set(Array.isArray(after.required) ? (after.required as string[]) : []);
      for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
        const [pa, pb] = [Object.hasOwn(a, name) ? a[name] : undefined, Object.hasOwn(b, name) ? b[name] : undefined];
        if (pa === undefined) found(required.has(name), `property "${name}" added${required.has(name) ? ", required" : ""}`, required.has(name) ? { sends: true } : {});
        else if (pb === undefined) found(true, `property "${name}" removed`, { reads: true, sends: true });
        else out.push(...compareSchemas(pa, pb, `${where}.${name}`, refs));
      }
    } else if (key === "items" && isRecord(a) && isRecord(b)) {
      out.push(...compareSchemas(a, b, `${where}[]`, refs));
    } else if (key === "additionalProperties") {
      const closes = b === false || (a === undefined && b !== undefined && b !== true);
      found(closes, `additionalProperties ${shown(a ?? "any")} → ${shown(b ?? "any")}`, closes ? { sends: true } : {});
    } else if (COMPATIBLE.has(key)) {
      found(false, `${key} ${orNone(a)} → ${orNone(b)}`);
    } else {
      // format, pattern, const, multipleOf, uniqueItems, readOnly, the combinators…: a change either way may refuse
      // what was sent or show what clients do not expect.
      found(true, `${key} ${a === undefined ? `added (${shown(b)})` : b === undefined ? `removed (was ${shown(a)})` : `changed (${shown(a)} → ${shown(b)})`}`, { reads: true, sends: true });
    }
  }
  return out;
}

/** Every change between the recorded contract and the new one, breaking ones first, then by version and subject. */
export function classify(recorded: WireContract | WireContractV1, now: WireContract): ContractChange[] {
  // A contract of the first form has its shared schemas written in: so is the new one, to compare them alike
  // (within a budget: definitions whose schemas that makes too large could not have recorded one).
  if (recorded.format === 1) {
    const inlined = writtenIn(now);
    return inlined === undefined ? [] : classify({ format: 2, shared: {}, versions: recorded.versions }, inlined);
  }
  const refs = new SharedPair(recorded.shared, now.shared);
  const out: ContractChange[] = [];
  for (const [key, before] of Object.entries(recorded.versions)) {
    const version = Number(key);
    const after = now.versions[key];
    if (after === undefined) {
      out.push({ breaking: true, version, subject: `version ${version}`, what: `version ${version} is no longer served`, clients: `every client of version ${version}`, origin: { file: "service.json", pointer: "/versions" }, side: "new" });
      continue;
    }
    out.push(...versionChanges(version, before, after, refs));
  }
  out.push(...sharedChanges(recorded, now, refs));
  return out.sort((x, y) => Number(y.breaking) - Number(x.breaking) || x.version - y.version || x.subject.localeCompare(y.subject));
}

/**
 * The shared schemas of two contracts, for comparing references: `alike(a, b)` when the recorded `a` and the
 * new `b` describe the same values (the same name counts as alike: a change inside it is reported once, at it).
 */
export class SharedPair {
  /** Pairs of different names found alike or not; a pair met again while it is compared is taken as alike (a cycle adds nothing). */
  private readonly known = new Map<string, boolean>();

  constructor(
    readonly before: Readonly<Record<string, WireShared>>,
    readonly after: Readonly<Record<string, WireShared>>,
  ) {}

  alike(a: string, b: string): boolean {
    if (a === b) return true;
    const x = Object.hasOwn(this.before, a) ? this.before[a] : undefined;
    const y = Object.hasOwn(this.after, b) ? this.after[b] : undefined;
    if (x === undefined || y === undefined) return false;
    const key = `${a}\u0000${b}`;
    const found = this.known.get(key);
    if (found !== undefined) return found;
    this.known.set(key, true);
    const alike = this.sameShape(x.schema, y.schema);
    this.known.set(key, alike);
    return alike;
  }

  private sameShape(a: unknown, b: unknown): boolean {
    if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => this.sameShape(v, b[i]));
    if (!isRecord(a) || !isRecord(b)) return a === b;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => Object.hasOwn(b, k) && (k === "$ref" && typeof a[k] === "string" && typeof b[k] === "string" ? this.alike(a[k] as string, b[k] as string) : this.sameShape(a[k], b[k])));
  }
}

const NO_SHARED = new SharedPair({}, {});

/** What uses a shared schema in one version: a property of a resource (sent and read), an action's parameter (sent) or response (read). */
interface SharedUse {
  readonly subject: string;
  readonly kind: "property" | "parameter" | "response";
}

/**
 * The changes inside the shared schemas both contracts define, each once per version that uses the schema:
 * breaking when it breaks a side of one of its uses, the clients named by those uses.
 */
function sharedChanges(recorded: WireContract, now: WireContract, refs: SharedPair): ContractChange[] {
  const changed = Object.keys(now.shared).filter((name) => Object.hasOwn(recorded.shared, name) && !same(recorded.shared[name]!.schema, now.shared[name]!.schema));
  if (changed.length === 0) return [];
  // Who refers to each shared schema among the shared schemas (the new ones), to find every use through them.
  const referrers = new Map<string, string[]>();
  for (const [name, s] of Object.entries(now.shared)) {
    for (const to of sharedRefsOf(s.schema)) referrers.set(to, [...(referrers.get(to) ?? []), name]);
  }
  const out: ContractChange[] = [];
  const uses = new Map<string, Map<string, SharedUse[]>>();
  for (const name of changed) {
    const findings = compareSchemas(recorded.shared[name]!.schema, now.shared[name]!.schema, `schema "${name}"`, refs);
    if (findings.length === 0) continue;
    // The shared schemas that reach this one (itself included).
    const reach = new Set([name]);
    const queue = [name];
    while (queue.length > 0) for (const from of referrers.get(queue.pop()!) ?? []) if (!reach.has(from)) reach.add(from), queue.push(from);
    for (const [key, version] of Object.entries(now.versions)) {
      if (!Object.hasOwn(recorded.versions, key)) continue; // a new version breaks no client
      let direct = uses.get(key);
      if (direct === undefined) uses.set(key, (direct = directUses(version)));
      const used = [...reach].flatMap((s) => direct.get(s) ?? []);
      if (used.length === 0) continue;
      const subjects = [...new Set(used.map((u) => u.subject))].sort();
      const named = subjects.length <= 3 ? subjects.join(", ") : `${subjects.slice(0, 3).join(", ")} and ${subjects.length - 3} more`;
      for (const f of findings) {
        const breaking = f.breaking && used.some((u) => u.kind === "property" || (u.kind === "parameter" && f.sends) || (u.kind === "response" && f.reads));
        const side = f.sends && f.reads ? "send or read" : f.sends ? "send" : "read";
        out.push({ breaking, version: Number(key), subject: name, what: f.what, clients: breaking ? `clients of version ${key} that ${side} ${named}` : "", origin: now.shared[name]!.origin, side: "new" });
      }
    }
  }
  return out;
}

/** Per shared schema, what in `version` refers to it directly. */
function directUses(version: WireVersion): Map<string, SharedUse[]> {
  const out = new Map<string, SharedUse[]>();
  const add = (schema: unknown, use: SharedUse) => {
    for (const name of sharedRefsOf(schema)) out.set(name, [...(out.get(name) ?? []), use]);
  };
  for (const [collection, r] of Object.entries(version.resources)) for (const [name, p] of Object.entries(r.properties)) add(p.schema, { subject: `${collection}.${name}`, kind: "property" });
  for (const [action, a] of Object.entries(version.actions)) {
    for (const [name, p] of Object.entries(a.params)) add(p.schema, { subject: `${action}.${name}`, kind: "parameter" });
    add(a.response, { subject: action, kind: "response" });
  }
  return out;
}

/** Schema nodes a contract of the first form may be compared through (see writtenIn). */
const WRITTEN_IN_BUDGET = 2_000_000;

/**
 * `contract` with its shared schemas written in where they are used, as the first form recorded it (a
 * schema that refers to itself keeps that reference, by name); undefined past WRITTEN_IN_BUDGET nodes.
 */
function writtenIn(contract: WireContract): WireContract | undefined {
  let nodes = 0;
  const write = (schema: unknown, expanding: ReadonlySet<string>): unknown => {
    if (++nodes > WRITTEN_IN_BUDGET) throw new RangeError("budget");
    if (Array.isArray(schema)) return schema.map((s) => write(s, expanding));
    if (!isRecord(schema)) return schema;
    const ref = schema.$ref;
    if (typeof ref === "string" && Object.hasOwn(contract.shared, ref)) {
      const rest = write(Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "$ref")), expanding) as Record<string, unknown>;
      if (expanding.has(ref)) return { ...rest, $ref: ref };
      const inner = write(contract.shared[ref]!.schema, new Set([...expanding, ref]));
      return Object.keys(rest).length === 0 ? inner : { allOf: [inner], ...rest };
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(schema)) Object.defineProperty(out, key, { value: DATA_KEYWORDS.has(key) ? value : write(value, expanding), enumerable: true, writable: true, configurable: true });
    return out;
  };
  try {
    const versions: Record<string, WireVersion> = {};
    for (const [key, v] of Object.entries(contract.versions)) {
      const resources: Record<string, WireResource> = {};
      for (const [c, r] of Object.entries(v.resources)) {
        const properties: Record<string, WireProperty> = {};
        for (const [name, p] of Object.entries(r.properties)) Object.defineProperty(properties, name, { value: { ...p, schema: write(p.schema, new Set()) }, enumerable: true, writable: true, configurable: true });
        resources[c] = { ...r, properties };
      }
      const actions: Record<string, WireAction> = {};
      for (const [name, a] of Object.entries(v.actions)) {
        actions[name] = { ...a, params: Object.fromEntries(Object.entries(a.params).map(([p, x]) => [p, { ...x, schema: write(x.schema, new Set()) }])), response: write(a.response, new Set()) };
      }
      versions[key] = { resources, actions };
    }
    return { format: 2, shared: {}, versions };
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

function versionChanges(version: number, before: WireVersion, after: WireVersion, refs: SharedPair): ContractChange[] {
  const out: ContractChange[] = [];
  const of = `clients of version ${version}`;
  for (const [collection, a] of Object.entries(before.resources)) {
    const b = after.resources[collection];
    if (b === undefined) {
      out.push({ breaking: true, version, subject: collection, what: `the collection ${collection} is no longer served`, clients: `${of} that use ${collection}`, origin: a.origin, side: "old" });
      continue;
    }
    out.push(...resourceChanges(version, collection, a, b, refs));
  }
  for (const [collection, b] of Object.entries(after.resources)) {
    if (before.resources[collection] === undefined) out.push({ breaking: false, version, subject: collection, what: `the collection ${collection} is new`, clients: "", origin: b.origin, side: "new" });
  }
  for (const [name, a] of Object.entries(before.actions)) {
    const b = after.actions[name];
    if (b === undefined) out.push({ breaking: true, version, subject: name, what: `the action ${name} is no longer served`, clients: `${of} that call ${name}`, origin: a.origin, side: "old" });
    else out.push(...actionChanges(version, name, a, b, refs));
  }
  for (const [name, b] of Object.entries(after.actions)) {
    if (before.actions[name] === undefined) out.push({ breaking: false, version, subject: name, what: `the action ${name} is new`, clients: "", origin: b.origin, side: "new" });
  }
  return out;
}

/** The clients a finding breaks, by the side it breaks. */
function clientsOf(version: number, subject: string, f: Found): string {
  const side = f.sends && f.reads ? "send or read" : f.sends ? "send" : "read";
  return f.breaking ? `clients of version ${version} that ${side} ${subject}` : "";
}

function resourceChanges(version: number, collection: string, a: WireResource, b: WireResource, refs: SharedPair): ContractChange[] {
  const out: ContractChange[] = [];
  const add = (subject: string, f: Found, origin = b.origin) => out.push({ breaking: f.breaking, version, subject, what: f.what, clients: clientsOf(version, subject, f), origin, side: "new" });
  if (a.mediaType !== b.mediaType) add(collection, { breaking: true, what: `media type ${a.mediaType} became ${b.mediaType}`, reads: true, sends: true });
  for (const action of ["create", "read", "update", "delete", "admin"] as const) {
    const [ra, rb] = [a.access[action], b.access[action]];
    if (same(ra, rb)) continue;
    const stricter = rb !== undefined && (ra === undefined || ra.some((r) => !rb.includes(r)));
    add(collection, { breaking: stricter, what: `${action} needs ${rb === undefined ? "no role" : `one of the roles ${shown(rb)}`} (was ${ra === undefined ? "no role" : shown(ra)})`, reads: action === "read", sends: action !== "read" });
  }
  for (const u of b.unique.filter((x) => !a.unique.includes(x))) add(`${collection}.${u}`, { breaking: true, what: `"${u}" is now unique (x-unique): a value already taken is refused`, reads: false, sends: true });
  for (const u of a.unique.filter((x) => !b.unique.includes(x))) add(`${collection}.${u}`, { breaking: false, what: `"${u}" is no longer unique`, reads: false, sends: false });
  for (const [name, pa] of Object.entries(a.properties)) {
    const pb = Object.hasOwn(b.properties, name) ? b.properties[name] : undefined;
    const subject = `${collection}.${name}`;
    if (pb === undefined) {
      out.push({ breaking: true, version, subject, what: `property "${name}" was removed (or renamed)`, clients: `clients of version ${version} that send or read ${subject}`, origin: pa.origin, side: "old" });
      continue;
    }
    for (const f of propertyChanges(name, pa, pb, refs)) add(subject, f, pb.origin);
  }
  for (const [name, pb] of Object.entries(b.properties)) {
    if (Object.hasOwn(a.properties, name)) continue;
    add(`${collection}.${name}`, pb.required ? { breaking: true, what: `property "${name}" is new and required`, reads: false, sends: true } : { breaking: false, what: `property "${name}" is new`, reads: false, sends: false }, pb.origin);
  }
  return out;
}

function propertyChanges(name: string, a: WireProperty, b: WireProperty, refs: SharedPair): Found[] {
  const out: Found[] = [];
  if (!a.required && b.required) out.push({ breaking: true, what: `property "${name}" is now required`, reads: false, sends: true });
  if (a.required && !b.required) out.push({ breaking: true, what: `property "${name}" is no longer required (an answer may leave it out)`, reads: true, sends: false });
  if (a.link !== b.link || a.many !== b.many) {
    const form = (p: WireProperty) => (p.link === undefined ? "a value" : `${p.many ? "links" : "a link"} to ${p.link}`);
    out.push({ breaking: true, what: `property "${name}" was ${form(a)} and is ${form(b)}`, reads: true, sends: true });
  }
  out.push(...compareSchemas(a.schema, b.schema, `property "${name}"`, refs));
  return out;
}

function actionChanges(version: number, name: string, a: WireAction, b: WireAction, refs: SharedPair): ContractChange[] {
  const out: ContractChange[] = [];
  const add = (subject: string, f: Found) => out.push({ breaking: f.breaking, version, subject, what: f.what, clients: f.breaking ? `clients of version ${version} that call ${name}` : "", origin: b.origin, side: "new" });
  if (a.method !== b.method) add(name, { breaking: true, what: `method ${a.method} became ${b.method}`, reads: true, sends: true });
  if (a.mediaType !== b.mediaType) add(name, { breaking: true, what: `media type ${a.mediaType} became ${b.mediaType}`, reads: true, sends: false });
  if (!same(a.roles, b.roles)) {
    const stricter = b.roles.length > 0 && (a.roles.length === 0 || a.roles.some((r) => !b.roles.includes(r)));
    add(name, { breaking: stricter, what: `needs ${b.roles.length === 0 ? "no role" : `one of the roles ${shown(b.roles)}`} (was ${a.roles.length === 0 ? "no role" : shown(a.roles)})`, reads: false, sends: true });
  }
  for (const [p, pa] of Object.entries(a.params)) {
    const pb = b.params[p];
    if (pb === undefined) add(`${name}.${p}`, { breaking: true, what: `parameter "${p}" was removed`, reads: false, sends: true });
    else {
      if (!pa.required && pb.required) add(`${name}.${p}`, { breaking: true, what: `parameter "${p}" is now required`, reads: false, sends: true });
      for (const f of compareSchemas(pa.schema, pb.schema, `parameter "${p}"`, refs)) add(`${name}.${p}`, { ...f, breaking: f.breaking && f.sends });
    }
  }
  for (const [p, pb] of Object.entries(b.params)) {
    if (a.params[p] === undefined) add(`${name}.${p}`, pb.required ? { breaking: true, what: `parameter "${p}" is new and required`, reads: false, sends: true } : { breaking: false, what: `parameter "${p}" is new`, reads: false, sends: false });
  }
  for (const f of compareSchemas(a.response, b.response, "the response", refs)) add(name, { ...f, breaking: f.breaking && f.reads });
  return out;
}
