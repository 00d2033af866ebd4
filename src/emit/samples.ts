/**
 * Sample values that satisfy a schema, for the generated tests and the docs' examples. Decided at
 * generate time and checked as ajv would; a schema no sample can satisfy yields undefined.
 */
import { keyOf } from "./keys.js";
import { createRequire } from "node:module";
import type { Ajv } from "ajv";
import RandExp from "randexp";
import { compileLinear, patternProblem } from "../model/patterns.js";
import { SHARED_SCHEMAS_ID } from "../model/conventions.js";
import { SharedSchemas } from "../model/shared.js";
import type { JsonSchema, SharedSchema } from "../model/types.js";
import { withSharedId } from "./spec.js";

type Schema = Record<string, unknown>;

const require = createRequire(import.meta.url);
// What ajv's validators call: its runtime helpers and ajv-formats' formats (small modules, unlike ajv itself).
const equal = (require("ajv/dist/runtime/equal") as { default: (a: unknown, b: unknown) => boolean }).default;
const ucs2length = (require("ajv/dist/runtime/ucs2length") as { default: (s: string) => number }).default;
const { fullFormats } = require("ajv-formats/dist/formats") as typeof import("ajv-formats/dist/formats.js");

const FORMATS: Readonly<Record<string, string>> = {
  email: "someone@example.com",
  "idn-email": "someone@example.com",
  uri: "https://example.com/page",
  "uri-reference": "https://example.com/page",
  iri: "https://example.com/page",
  url: "https://example.com/page",
  hostname: "example.com",
  "idn-hostname": "example.com",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  date: "2024-01-15",
  "date-time": "2024-01-15T10:30:00Z",
  time: "10:30:00Z",
  duration: "P1D",
  uuid: "6f1c2a8e-3b7d-4c5e-9a1f-2d3e4f5a6b7c",
  regex: "^a+$",
  "json-pointer": "/a/b",
};

let ajv: Ajv | undefined;

/** The shared schemas samples are made and checked with: those of the model being emitted (useSharedSchemas). */
let shared = new SharedSchemas([]);
let sharedList: readonly SharedSchema[] = [];

/**
 * Makes the model's shared schemas the ones `{ "$ref": "#/$defs/<name>" }` stands for in the schemas
 * sampled from now on; every emitter of a model calls it first (a second call with the same list does nothing).
 */
export function useSharedSchemas(schemas: readonly SharedSchema[]): void {
  if (schemas === sharedList) return;
  sharedList = schemas;
  sharedKey = undefined;
  shared = new SharedSchemas(schemas);
  ajv = undefined; // the next validator holds these
  // Every answer below may follow a shared reference: none is kept across shared schemas.
  compiled = new WeakMap();
  givenCache = new WeakMap();
  quickChecks = new WeakMap();
  refs = new RefChecks();
}

let sharedKey: string | undefined;

/** The key (emit/keys.ts) of the shared schemas in use: part of the key of anything sampled from a schema that may $ref them. */
export function sharedSchemasKey(): string {
  return (sharedKey ??= keyOf("shared schemas", sharedList));
}

/**
 * What a schema says once a shared reference in it is followed (the keywords written beside the $ref
 * over the shared schema's), for readers that describe a value, as the docs do; the schema itself otherwise.
 */
export function withSharedResolved(schema: JsonSchema): JsonSchema {
  if (SharedSchemas.nameOf(schema) === undefined) return schema;
  const { $ref: _ref, ...beside } = schema as Schema;
  const target = shared.deref(schema);
  return typeof target === "object" ? { ...target, ...beside } : target;
}

function validator(): Ajv {
  if (ajv) return ajv;
  // Loaded on first use: the quick check answers for most schemas, so a run may never need ajv's compiler.
  const { Ajv: AjvClass } = require("ajv") as typeof import("ajv");
  type Plugin = (a: Ajv) => unknown;
  const formatsPlugin = require("ajv-formats") as { default?: Plugin } & Plugin;
  // Each schema is validated against a few dozen samples only: skipping code optimization halves compile time.
  // Patterns are tested by RE2, as the generated service tests them: linear in the sample, whatever the pattern.
  // (ajv keeps one compiled pattern per toString(): each tells its pattern apart.)
  const regExp = (pattern: string, flags: string) => ({ ...compileLinear(pattern), toString: () => `/${pattern}/${flags}` });
  // ownProperties as the service's ajv: an optional property named toString is absent from a sample without it.
  ajv = new AjvClass({ strict: false, allowUnionTypes: true, validateFormats: true, ownProperties: true, code: { optimize: false, regExp: regExp as never } });
  (formatsPlugin.default ?? formatsPlugin)(ajv);
  if (sharedList.length > 0) {
    const $defs: Record<string, unknown> = {};
    for (const s of sharedList) Object.defineProperty($defs, s.name, { value: s.schema, enumerable: true, writable: true, configurable: true });
    ajv.addSchema({ $id: SHARED_SCHEMAS_ID, $defs });
  }
  return ajv;
}

let compiled = new WeakMap<object, ((value: unknown) => boolean) | null>();

/** True when `value` is valid against `schema`: by the quick check when it knows every keyword, else by ajv. */
export function isValidSample(schema: JsonSchema, value: unknown): boolean {
  if (typeof schema === "boolean") return schema;
  const quick = quickCheckOf(schema);
  return quick ? quick(value) : ajvIsValid(schema, value);
}

/** What ajv answers (each schema object is compiled once; a schema ajv rejects accepts nothing). */
export function ajvIsValid(schema: JsonSchema, value: unknown): boolean {
  if (typeof schema === "boolean") return schema;
  let fn = compiled.get(schema);
  if (fn === undefined) {
    try {
      const v = validator().compile(withSharedId(schema) as object);
      fn = (x: unknown) => v(x) as boolean;
    } catch {
      fn = null;
    }
    compiled.set(schema, fn);
  }
  return fn ? fn(value) : false;
}

/**
 * A value valid against `schema`, varied by `seed` (so unique fields can get distinct values), or
 * undefined when none was found. The schema's own valid `examples` and `default` come first (seed 0
 * is the first of them, seed 1 the next), at every level; generated values follow.
 * @example sampleOf({ type: "integer", minimum: 3 }) === 3
 * @example sampleOf({ type: "string", examples: ["Ursula"] }) === "Ursula"
 */
export function sampleOf(schema: JsonSchema, seed = 0): unknown {
  const value = build(schema, seed, 0);
  return value !== undefined && isValidSample(schema, value) ? value : undefined;
}

/** How many seeds firstSample tries: as many as the contract tests vary bodies by. */
export const SAMPLE_SEEDS = 24;

/**
 * The first sample of `schema` over the seeds (an example that fails a constraint another level adds
 * gives way to a generated value), or undefined when none is valid.
 * @example firstSample({ type: "string", examples: ["toolong"], maxLength: 3 }) === "sam"
 */
export function firstSample(schema: JsonSchema): unknown {
  for (let seed = 0; seed < SAMPLE_SEEDS; seed++) {
    const value = sampleOf(schema, seed);
    if (value !== undefined) return value;
  }
  return undefined;
}

let givenCache = new WeakMap<object, readonly unknown[]>();

/**
 * The values the schema names itself, valid against it: its `examples` in order, then its `default`.
 * An example the schema rejects (a typo in the definitions) is left out, never sampled.
 */
export function givenValues(schema: JsonSchema): readonly unknown[] {
  if (typeof schema !== "object" || schema === null) return [];
  let found = givenCache.get(schema);
  if (found) return found;
  const s = schema as Schema;
  const candidates = [...(Array.isArray(s.examples) ? (s.examples as unknown[]) : []), ...(s.default !== undefined ? [s.default] : [])];
  const valid: unknown[] = [];
  for (const c of candidates) if (!valid.some((v) => equal(v, c)) && isValidSample(schema, c)) valid.push(c);
  givenCache.set(schema, (found = valid));
  return found;
}

function build(schema: JsonSchema, seed: number, depth: number): unknown {
  if (schema === true || schema === undefined) return `sample-${seed}`;
  if (schema === false || depth > 6) return undefined;
  const s = schema as Schema;
  if (s.examples !== undefined || s.default !== undefined) {
    const given = givenValues(s);
    if (seed < given.length) return given[seed];
  }
  // A shared schema: a value of what it stands for (a loop of them ends at the depth limit).
  if (SharedSchemas.nameOf(schema) !== undefined) return build(shared.deref(schema), seed, depth + 1);
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[seed % s.enum.length];
  for (const key of ["oneOf", "anyOf"] as const) {
    if (Array.isArray(s[key]) && (s[key] as unknown[]).length > 0) return build((s[key] as JsonSchema[])[0]!, seed, depth + 1);
  }
  if (Array.isArray(s.allOf)) return build(Object.assign({}, ...(s.allOf as Schema[]), { allOf: undefined }), seed, depth + 1);
  const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === "string" ? [s.type] : [];
  const type = types.find((t) => t !== "null") ?? types[0] ?? (s.properties ? "object" : s.items ? "array" : "string");
  switch (type) {
    case "string":
      return stringSample(s, seed);
    case "integer":
    case "number":
      return numberSample(s, seed, type === "integer");
    case "boolean":
      return seed % 2 === 0;
    case "null":
      return null;
    case "array": {
      const n = Math.max(Number(s.minItems ?? 0), 1);
      const max = s.maxItems === undefined ? n : Number(s.maxItems);
      const items = Array.from({ length: Math.min(n, max) }, (_, i) => build((s.items ?? true) as JsonSchema, seed + i, depth + 1));
      return items.some((i) => i === undefined) ? undefined : items;
    }
    case "object": {
      const out: Record<string, unknown> = {};
      const props = (s.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
      for (const [k, v] of Object.entries(props)) {
        if (!required.has(k) && depth > 0) continue;
        const value = build(v, seed, depth + 1);
        if (value === undefined) {
          if (required.has(k)) return undefined;
          continue;
        }
        out[k] = value;
      }
      return out;
    }
    default:
      return undefined;
  }
}

function stringSample(s: Schema, seed: number): string | undefined {
  const format = typeof s.format === "string" ? FORMATS[s.format] : undefined;
  let value: string;
  if (format !== undefined) {
    value = seed === 0 ? format : format.replace(/^([a-z]+)/i, `$1${seed}`);
    if (s.format === "email") value = `someone${seed || ""}@example.com`;
    if (s.format === "uuid") value = format.slice(0, -2) + String(seed % 100).padStart(2, "0");
  } else if (typeof s.pattern === "string") {
    const generated = patternSample(s.pattern, seed);
    if (generated === undefined) return undefined;
    value = generated;
  } else {
    value = seed === 0 ? "sample" : `sample-${seed}`;
  }
  const min = Number(s.minLength ?? 0);
  const max = s.maxLength === undefined ? Infinity : Number(s.maxLength);
  if (value.length < min && s.pattern === undefined && format === undefined) value = value.padEnd(min, "x");
  if (value.length > max && s.pattern === undefined && format === undefined) value = seed === 0 ? value.slice(0, max) : (String(seed) + value).slice(0, max);
  return value;
}

/** pattern → seed → the string RandExp generates (undefined when it cannot): the same few patterns recur in every resource. */
const patternSamples = new Map<string, Map<number, string | undefined>>();

/** A string matching `pattern` (unless it uses what RandExp cannot follow), varied by `seed`. */
function patternSample(pattern: string, seed: number): string | undefined {
  let bySeed = patternSamples.get(pattern);
  if (!bySeed) patternSamples.set(pattern, (bySeed = new Map()));
  if (bySeed.has(seed)) return bySeed.get(seed);
  let value: string | undefined;
  try {
    // Only a pattern the service can use is worth a sample (and RE2 bounds what RandExp makes of it).
    if (patternProblem(pattern)) throw new Error("unusable pattern");
    const gen = new RandExp(pattern);
    gen.max = 8;
    let seedState = seed + 1;
    gen.randInt = (a: number, b: number) => a + ((seedState = (seedState * 48271) % 2147483647) % (b - a + 1));
    value = gen.gen();
  } catch {
    value = undefined;
  }
  bySeed.set(seed, value);
  return value;
}

function numberSample(s: Schema, seed: number, integer: boolean): number {
  const exMin = typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum + (integer ? 1 : 0.5) : undefined;
  const exMax = typeof s.exclusiveMaximum === "number" ? s.exclusiveMaximum - (integer ? 1 : 0.5) : undefined;
  const min = exMin ?? (typeof s.minimum === "number" ? s.minimum : undefined);
  const max = exMax ?? (typeof s.maximum === "number" ? s.maximum : undefined);
  let n = (min ?? (max !== undefined ? Math.min(1, max) : 1)) + seed;
  if (max !== undefined && n > max) n = min ?? max;
  if (typeof s.multipleOf === "number" && s.multipleOf > 0) n = Math.ceil(n / s.multipleOf) * s.multipleOf;
  return integer ? Math.ceil(n) : n;
}

/** One compiled check of a value against a schema. */
export type Check = (value: unknown) => boolean;

/**
 * A check that answers exactly as ajvIsValid would, or undefined when `schema` uses a keyword it does
 * not know. Compiling an ajv validator per schema costs far more than the few dozen samples it then
 * checks, and samples are built from a handful of keywords: those are checked here with the semantics
 * of the service's ajv (draft-07, strict: false, ownProperties, patterns by RE2, ajv-formats' format
 * functions), the applicators real APIs compose them with (allOf, anyOf, oneOf, not) and references to
 * the shared schemas (useSharedSchemas), followed as ajv follows them. Anything else (another keyword,
 * a keyword value ajv's meta-schema rejects, a shared schema that reaches one) is left to ajv. (It
 * assumes the shared schemas themselves are valid, as `check` makes sure before anything is generated.)
 * test/unit/emit/samples.test.ts holds the two to the same answers.
 */
export function quickCheckOf(schema: JsonSchema): Check | undefined {
  return quickCheck(schema) ?? undefined;
}

const ALWAYS: Check = () => true;
const NEVER: Check = () => false;
let quickChecks = new WeakMap<object, Check | null>();

/** Each schema object is compiled once: field schemas are shared by the body schemas built around them. */
function quickCheck(schema: unknown): Check | null {
  if (schema === true) return ALWAYS;
  if (schema === false) return NEVER;
  if (!isPlainObject(schema)) return null;
  let check = quickChecks.get(schema);
  if (check === undefined) quickChecks.set(schema, (check = compileQuick(schema)));
  return check;
}

/**
 * Keywords that never fail a value, with the values ajv's draft-07 meta-schema accepts for them (it
 * does not describe writeOnly and deprecated: only the booleans they are meant to hold are taken).
 */
const ANNOTATIONS: Readonly<Record<string, (v: unknown) => boolean>> = {
  title: (v) => typeof v === "string",
  description: (v) => typeof v === "string",
  $comment: (v) => typeof v === "string",
  examples: Array.isArray,
  default: () => true,
  readOnly: (v) => typeof v === "boolean",
  writeOnly: (v) => typeof v === "boolean",
  deprecated: (v) => typeof v === "boolean",
};

const SIMPLE_TYPES = new Set(["array", "boolean", "integer", "null", "number", "object", "string"]);

/** ajv's loopEnum default: from this many values on, its enum compares primitives with equal() too. */
const LOOP_ENUM = 200;

/** The checks of one schema object, or null when ajv has to decide. */
function compileQuick(s: Record<string, unknown>): Check | null {
  const checks: Check[] = [];
  for (const key of Object.keys(s)) {
    const v = s[key];
    if (Object.hasOwn(ANNOTATIONS, key)) {
      if (!ANNOTATIONS[key]!(v)) return null;
      continue;
    }
    if (key.startsWith("x-")) {
      // ajv looks for "$id" and "$anchor" inside unknown keywords' objects too, and may throw on them.
      if (!idFree(v)) return null;
      continue;
    }
    const check = keywordCheck(key, v, s);
    if (!check) return null;
    if (check !== ALWAYS) checks.push(check);
  }
  if (checks.length === 0) return ALWAYS;
  if (checks.length === 1) return checks[0]!;
  return (x) => checks.every((c) => c(x));
}

/** The check of one keyword (ALWAYS when it cannot fail), or null when unknown here or not a valid value. */
function keywordCheck(key: string, v: unknown, s: Record<string, unknown>): Check | null {
  switch (key) {
    case "type": {
      const types = typesOf(v);
      return types && ((x) => hasType(x, types));
    }
    case "enum": {
      if (!Array.isArray(v) || v.length === 0 || hasDuplicates(v)) return null;
      const deep = v.length >= LOOP_ENUM;
      return (x) => v.some((e) => (deep || (typeof e === "object" && e !== null) ? equal(x, e) : x === e));
    }
    case "const":
      return (x) => equal(x, v);
    // ajv fails NaN on every limit: so do these comparisons.
    case "minimum":
      return typeof v === "number" ? (x) => typeof x !== "number" || x >= v : null;
    case "maximum":
      return typeof v === "number" ? (x) => typeof x !== "number" || x <= v : null;
    case "exclusiveMinimum":
      return typeof v === "number" ? (x) => typeof x !== "number" || x > v : null;
    case "exclusiveMaximum":
      return typeof v === "number" ? (x) => typeof x !== "number" || x < v : null;
    case "multipleOf":
      // ajv's own test (without multipleOfPrecision), parseInt quirks included.
      return typeof v === "number" && v > 0 ? (x) => typeof x !== "number" || x / v === parseInt(String(x / v)) : null;
    case "minLength":
      return isCount(v) ? (x) => typeof x !== "string" || ucs2length(x) >= v : null;
    case "maxLength":
      return isCount(v) ? (x) => typeof x !== "string" || ucs2length(x) <= v : null;
    case "pattern": {
      // Tested as the service tests it: by RE2, in time linear in the sample (never a backtracking stall).
      const re = typeof v === "string" && isRegex(v) ? linearOrNull(v) : null;
      return re && ((x) => typeof x !== "string" || re.test(x));
    }
    case "format":
      return typeof v === "string" ? formatCheck(v) : null;
    case "items": {
      const item = quickCheck(v);
      return item && ((x) => !Array.isArray(x) || everyIndex(x, item));
    }
    case "minItems":
      return isCount(v) ? (x) => !Array.isArray(x) || x.length >= v : null;
    case "maxItems":
      return isCount(v) ? (x) => !Array.isArray(x) || x.length <= v : null;
    case "uniqueItems": {
      if (typeof v !== "boolean") return null;
      if (!v) return ALWAYS;
      // ajv dedupes items of scalar types by object key, others with equal(): the answers differ for "__proto__".
      const itemTypes = isPlainObject(s.items) && s.items.type !== undefined ? typesOf(s.items.type) : [];
      if (!itemTypes) return null;
      const scalar = itemTypes.length > 0 && !itemTypes.some((t) => t === "object" || t === "array");
      return (x) => !Array.isArray(x) || !(scalar ? hasScalarDuplicates(x, itemTypes) : hasDuplicates(x));
    }
    case "properties":
      return propertiesCheck(v);
    case "required": {
      if (!Array.isArray(v) || !v.every((r) => typeof r === "string") || new Set(v).size !== v.length) return null;
      const names = v as string[];
      return (x) => !isJsonObject(x) || names.every((r) => (x as Record<string, unknown>)[r] !== undefined && Object.hasOwn(x as object, r));
    }
    case "additionalProperties":
      return additionalCheck(v, s.properties);
    case "allOf":
    case "anyOf":
    case "oneOf": {
      // ajv's meta-schema wants a non-empty array of schemas.
      if (!Array.isArray(v) || v.length === 0) return null;
      const checks: Check[] = [];
      for (const sub of v) {
        const check = quickCheck(sub);
        if (!check) return null;
        checks.push(check);
      }
      if (key === "allOf") return (x) => checks.every((c) => c(x));
      if (key === "anyOf") return (x) => checks.some((c) => c(x));
      return (x) => {
        let passed = 0;
        for (const c of checks) if (c(x) && ++passed > 1) return false;
        return passed === 1;
      };
    }
    case "not": {
      const check = quickCheck(v);
      return check && ((x) => !check(x));
    }
    case "$ref":
      // As any other keyword (ajv applies the keywords beside a $ref too).
      return refs.check(v);
    default:
      return null;
  }
}

/**
 * The checks of references to shared schemas (`{ "$ref": "#/$defs/<name>" }`). A reference checks the
 * value against its schema's quick check, looked up when first used (shared schemas refer to each other in
 * loops); it exists only when that schema's quick check does, and so on through every schema it reaches.
 * While a shared schema is compiled, a reference back to it is taken on trust; should the schema turn
 * out to need ajv, the checks made meanwhile are dropped (quickChecks starts afresh), so that none
 * relies on it.
 */
class RefChecks {
  /** Shared schemas the quick check cannot answer for: ajv decides every schema reaching them. */
  private readonly unknown = new Set<string>();
  /** Shared schemas being compiled, outermost first. */
  private readonly compiling = new Set<string>();
  /** A reference was taken on trust since the outermost of `compiling` started. */
  private trusted = false;

  check(ref: unknown): Check | null {
    const name = SharedSchemas.nameOf({ $ref: ref });
    // A pointer token with escapes ("~1", "%2F") names another schema than its text: left to ajv.
    if (name === undefined || /[~%/]/.test(name) || shared.get(name) === undefined || this.unknown.has(name) || this.bareLoop(name)) return null;
    const target = shared.get(name)!.schema;
    if (this.compiling.has(name)) {
      this.trusted = true;
      return lazily(target);
    }
    this.compiling.add(name);
    let found: Check | null;
    try {
      found = quickCheck(target);
    } finally {
      this.compiling.delete(name);
    }
    if (!found) {
      this.unknown.add(name);
      if (this.trusted) quickChecks = new WeakMap();
    }
    if (this.compiling.size === 0) this.trusted = false;
    return found && lazily(target);
  }

  /**
   * True when `name` starts a loop of references with nothing else beside them: ajv follows such a
   * reference to its target while it compiles, and fails on the loop (it then accepts nothing).
   */
  private bareLoop(name: string): boolean {
    const seen = new Set<string>();
    for (let at: string | undefined = name; at !== undefined; ) {
      if (seen.has(at)) return true;
      seen.add(at);
      const schema: JsonSchema | undefined = shared.get(at)?.schema;
      if (!isPlainObject(schema) || Object.keys(schema).some((k) => k !== "$ref" && !Object.hasOwn(ANNOTATIONS, k) && !k.startsWith("x-"))) return false;
      at = SharedSchemas.nameOf(schema);
    }
    return false;
  }
}

let refs = new RefChecks();

/** The check of a shared schema, looked up at its first use (by then its compile has ended, and found one). */
function lazily(target: JsonSchema): Check {
  let resolved: Check | undefined;
  return (x) => (resolved ??= quickCheck(target)!)(x);
}

/** properties: each named value present (an own property, not undefined, as ajv tests with ownProperties) is valid. */
function propertiesCheck(v: unknown): Check | null {
  // ajv skips a "__proto__" entry here but counts it in additionalProperties past 8 properties.
  if (!isPlainObject(v) || Object.hasOwn(v, "__proto__")) return null;
  const entries: [string, Check][] = [];
  for (const name of Object.keys(v)) {
    const check = quickCheck(v[name]);
    if (!check) return null;
    if (check !== ALWAYS) entries.push([name, check]);
  }
  return (x) => {
    if (!isJsonObject(x)) return true;
    const o = x as Record<string, unknown>;
    return entries.every(([name, check]) => o[name] === undefined || !Object.hasOwn(o, name) || check(o[name]));
  };
}

/** additionalProperties: every own enumerable key (Object.keys, as ajv with ownProperties) not named in properties is allowed. */
function additionalCheck(v: unknown, properties: unknown): Check | null {
  const check = quickCheck(v);
  if (!check) return null;
  if (check === ALWAYS) return ALWAYS;
  if (properties !== undefined && (!isPlainObject(properties) || Object.hasOwn(properties, "__proto__"))) return null;
  const named = properties ?? {};
  return (x) => {
    if (!isJsonObject(x)) return true;
    const o = x as Record<string, unknown>;
    for (const key of Object.keys(o)) if (!Object.hasOwn(named, key) && !check(o[key])) return false;
    return true;
  };
}

/**
 * format: ajv-formats' own definitions. A name it does not define is no constraint (ajv, not strict, warns
 * and ignores it), but for the names of Object.prototype's members, which ajv's lookup finds: left to ajv.
 */
function formatCheck(name: string): Check | null {
  if (!Object.hasOwn(fullFormats, name)) return name in Object.prototype ? null : ALWAYS;
  const def = fullFormats[name as keyof typeof fullFormats] as unknown;
  if (def === true) return ALWAYS;
  let type = "string";
  let test: unknown = def;
  if (typeof def === "object" && def !== null && !(def instanceof RegExp)) {
    const d = def as { type?: string; validate?: unknown; async?: boolean };
    if (d.async) return null;
    type = d.type ?? "string";
    test = d.validate;
  }
  if (type !== "string" && type !== "number") return ALWAYS;
  // A global or sticky pattern would make ajv's answer depend on earlier calls.
  if (test instanceof RegExp && !test.global && !test.sticky) return (x) => typeof x !== type || test.test(x as string);
  if (typeof test === "function") return (x) => typeof x !== type || Boolean(test(x));
  return null;
}

/** The types a "type" value names, or null when ajv's meta-schema rejects it. */
function typesOf(v: unknown): string[] | null {
  const types = Array.isArray(v) ? v : [v];
  if (Array.isArray(v) && (v.length === 0 || new Set(v).size !== v.length)) return null;
  return types.every((t) => typeof t === "string" && SIMPLE_TYPES.has(t)) ? (types as string[]) : null;
}

/** ajv's type tests (strictNumbers off: NaN and Infinity are numbers). */
function hasType(x: unknown, types: readonly string[]): boolean {
  return types.some((t) => {
    switch (t) {
      case "null":
        return x === null;
      case "array":
        return Array.isArray(x);
      case "object":
        return isJsonObject(x);
      case "integer":
        return typeof x === "number" && !(x % 1) && !isNaN(x);
      default:
        return typeof x === t;
    }
  });
}

function isJsonObject(x: unknown): boolean {
  return Boolean(x) && typeof x === "object" && !Array.isArray(x);
}

/** An object as JSON.parse or a literal makes it (schemas of any other kind are left to ajv). */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype;
}

/** A non-negative integer, as the meta-schema wants for length and count limits. */
function isCount(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0;
}

/** A pattern ajv accepts: ajv-formats' "regex" format (checked by the meta-schema) and a "u" RegExp. */
function isRegex(pattern: string): boolean {
  if (!(fullFormats.regex as (s: string) => boolean)(pattern)) return false;
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

/** The pattern compiled by RE2, or null when RE2 rejects it (ajv, with the same engine, then rejects the schema). */
function linearOrNull(pattern: string): { test(s: string): boolean } | null {
  try {
    return compileLinear(pattern);
  } catch {
    return null;
  }
}

/** Every item valid, holes included (as undefined: ajv loops over indices, unlike Array#every). */
function everyIndex(items: readonly unknown[], check: Check): boolean {
  for (let i = 0; i < items.length; i++) if (!check(items[i])) return false;
  return true;
}

function hasDuplicates(items: readonly unknown[]): boolean {
  for (let i = items.length; i--; ) for (let j = i; j--; ) if (equal(items[i], items[j])) return true;
  return false;
}

/** ajv's uniqueItems for scalar item types: items of other types are skipped, the rest keyed in an object. */
function hasScalarDuplicates(items: readonly unknown[], types: readonly string[]): boolean {
  const indices: Record<string, unknown> = {};
  for (let i = items.length; i--; ) {
    let item = items[i];
    if (!hasType(item, types)) continue;
    if (types.length > 1 && typeof item === "string") item += "_";
    const key = item as string;
    if (typeof indices[key] === "number") return true;
    indices[key] = i;
  }
  return false;
}

/** True when no object inside `v` carries "$id", "$anchor" or "$dynamicAnchor". */
function idFree(v: unknown): boolean {
  if (v === null || typeof v !== "object") return true;
  if (Array.isArray(v)) return v.every(idFree);
  if (Object.hasOwn(v, "$id") || Object.hasOwn(v, "$anchor") || Object.hasOwn(v, "$dynamicAnchor")) return false;
  return Object.values(v).every(idFree);
}
