/**
 * What changed between two wire contracts (contract.ts), version by version, each change classified by the
 * direction a client meets it in, as oasdiff and buf do: what a client sends may only get looser (a new
 * required property, a narrower type or enum, a stricter limit, a new unique key or stricter access
 * breaks the clients that send), what it reads may not change shape (a property removed or renamed, a
 * type changed, a new enum value breaks the clients that read). A property of a resource is both sent and
 * read, so most changes to it break one side or the other; a new optional property, a looser limit, a new
 * collection or action, and changed wording are compatible.
 */
import type { ContractOrigin, WireAction, WireContract, WireProperty, WireResource, WireVersion } from "./contract.js";

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
export function compareSchemas(before: unknown, after: unknown, where: string): Found[] {
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
        else out.push(...compareSchemas(pa, pb, `${where}.${name}`));
      }
    } else if (key === "items" && isRecord(a) && isRecord(b)) {
      out.push(...compareSchemas(a, b, `${where}[]`));
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
export function classify(recorded: WireContract, now: WireContract): ContractChange[] {
  const out: ContractChange[] = [];
  for (const [key, before] of Object.entries(recorded.versions)) {
    const version = Number(key);
    const after = now.versions[key];
    if (after === undefined) {
      out.push({ breaking: true, version, subject: `version ${version}`, what: `version ${version} is no longer served`, clients: `every client of version ${version}`, origin: { file: "service.json", pointer: "/versions" }, side: "new" });
      continue;
    }
    out.push(...versionChanges(version, before, after));
  }
  return out.sort((x, y) => Number(y.breaking) - Number(x.breaking) || x.version - y.version || x.subject.localeCompare(y.subject));
}

function versionChanges(version: number, before: WireVersion, after: WireVersion): ContractChange[] {
  const out: ContractChange[] = [];
  const of = `clients of version ${version}`;
  for (const [collection, a] of Object.entries(before.resources)) {
    const b = after.resources[collection];
    if (b === undefined) {
      out.push({ breaking: true, version, subject: collection, what: `the collection ${collection} is no longer served`, clients: `${of} that use ${collection}`, origin: a.origin, side: "old" });
      continue;
    }
    out.push(...resourceChanges(version, collection, a, b));
  }
  for (const [collection, b] of Object.entries(after.resources)) {
    if (before.resources[collection] === undefined) out.push({ breaking: false, version, subject: collection, what: `the collection ${collection} is new`, clients: "", origin: b.origin, side: "new" });
  }
  for (const [name, a] of Object.entries(before.actions)) {
    const b = after.actions[name];
    if (b === undefined) out.push({ breaking: true, version, subject: name, what: `the action ${name} is no longer served`, clients: `${of} that call ${name}`, origin: a.origin, side: "old" });
    else out.push(...actionChanges(version, name, a, b));
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

function resourceChanges(version: number, collection: string, a: WireResource, b: WireResource): ContractChange[] {
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
    for (const f of propertyChanges(name, pa, pb)) add(subject, f, pb.origin);
  }
  for (const [name, pb] of Object.entries(b.properties)) {
    if (Object.hasOwn(a.properties, name)) continue;
    add(`${collection}.${name}`, pb.required ? { breaking: true, what: `property "${name}" is new and required`, reads: false, sends: true } : { breaking: false, what: `property "${name}" is new`, reads: false, sends: false }, pb.origin);
  }
  return out;
}

function propertyChanges(name: string, a: WireProperty, b: WireProperty): Found[] {
  const out: Found[] = [];
  if (!a.required && b.required) out.push({ breaking: true, what: `property "${name}" is now required`, reads: false, sends: true });
  if (a.required && !b.required) out.push({ breaking: true, what: `property "${name}" is no longer required (an answer may leave it out)`, reads: true, sends: false });
  if (a.link !== b.link || a.many !== b.many) {
    const form = (p: WireProperty) => (p.link === undefined ? "a value" : `${p.many ? "links" : "a link"} to ${p.link}`);
    out.push({ breaking: true, what: `property "${name}" was ${form(a)} and is ${form(b)}`, reads: true, sends: true });
  }
  out.push(...compareSchemas(a.schema, b.schema, `property "${name}"`));
  return out;
}

function actionChanges(version: number, name: string, a: WireAction, b: WireAction): ContractChange[] {
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
      for (const f of compareSchemas(pa.schema, pb.schema, `parameter "${p}"`)) add(`${name}.${p}`, { ...f, breaking: f.breaking && f.sends });
    }
  }
  for (const [p, pb] of Object.entries(b.params)) {
    if (a.params[p] === undefined) add(`${name}.${p}`, pb.required ? { breaking: true, what: `parameter "${p}" is new and required`, reads: false, sends: true } : { breaking: false, what: `parameter "${p}" is new`, reads: false, sends: false });
  }
  for (const f of compareSchemas(a.response, b.response, "the response")) add(name, { ...f, breaking: f.breaking && f.reads });
  return out;
}
