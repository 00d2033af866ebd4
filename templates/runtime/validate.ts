/**
 * Request validation with ajv, compiled once at start-up: bodies strictly (no coercion, no silent
 * removal of unknown properties), action query strings with scalar coercion. Failures become catalog errors.
 */
import { Ajv, type CodeOptions, type ErrorObject, type ValidateFunction } from "ajv";
import formatsPlugin from "ajv-formats";
import { RE2JS } from "re2js";
import { SERVER_OWNED as SERVER_OWNED_NAMES, SHARED_SCHEMAS_ID } from "./conventions.js";
import { ApiError, entry, type Catalog } from "./errors.js";
import type { ServiceSpec } from "./spec.js";

type RegExpEngine = NonNullable<CodeOptions["regExp"]>;
type RegExpLike = ReturnType<RegExpEngine>;

/** Properties the server owns; sent in a body they are a readOnlyProperty error, not an unknown one. */
export const SERVER_OWNED: ReadonlySet<string> = new Set(SERVER_OWNED_NAMES);

/** Compiled validators of one service. */
export interface Validators {
  /** Validates a create/replace body of a collection (defaults applied); throws ApiError. */
  body(collection: string, value: unknown, readOnly: ReadonlySet<string>): void;
  /** Validates and coerces action query parameters; returns them typed; throws ApiError. */
  query(action: string, value: Record<string, unknown>): Record<string, unknown>;
}

/**
 * `pattern` (and patternProperties) tested by RE2, whose time is linear in the input: with JavaScript's
 * backtracking RegExp, 41 characters against `^(a+)+$` block the event loop for minutes. `check` refuses
 * the patterns RE2 cannot compile (backreferences, lookaround).
 * @example linearRegExp("^(a+)+$", "u").test("a".repeat(41) + "!") === false, at once
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string): RegExpLike => {
    const re = RE2JS.compile(pattern, flags.includes("i") ? RE2JS.CASE_INSENSITIVE : 0);
    // ajv keeps one compiled pattern per toString(): each must tell its pattern and flags apart.
    const like = { test: (s: string) => re.test(s), toString: () => `/${pattern}/${flags}` };
    return like;
  },
  // `code` names the engine in ajv's standalone output, which the service never produces.
  { code: 'require("./validate.js").linearRegExp' },
);

function newAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: false,
    coerceTypes: coerce,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
    allowUnionTypes: true,
    validateFormats: true,
    // Properties are looked up on the value itself: an optional property named toString or valueOf is
    // otherwise read from Object.prototype (a function), and every body that omits it fails its schema.
    ownProperties: true,
    code: { regExp: linearRegExp },
  });
  type Plugin = (a: Ajv) => unknown;
  const addFormats = ((formatsPlugin as unknown as { default?: Plugin }).default ?? formatsPlugin) as unknown as Plugin;
  addFormats(ajv);
  return ajv;
}

/** Compiles every body and query schema of the service once. */
export function compileValidators(spec: ServiceSpec, catalog: Catalog): Validators {
  const bodies = newAjv(false);
  const queries = newAjv(true);
  if (spec.schemas !== undefined) {
    // Refs inside the shared schemas are local ("#/$defs/…"); those in bodies and queries name this $id.
    for (const ajv of [bodies, queries]) ajv.addSchema({ $id: SHARED_SCHEMAS_ID, $defs: spec.schemas });
  }
  const bodyFns = new Map<string, ValidateFunction>();
  for (const r of spec.resources) bodyFns.set(r.collection, bodies.compile(r.bodySchema as object));
  const queryFns = new Map<string, ValidateFunction>();
  for (const a of spec.actions) queryFns.set(a.name, queries.compile(a.query as object));

  return {
    body(collection, value, readOnly) {
      const fn = bodyFns.get(collection)!;
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        throw new ApiError(entry(catalog, "invalidProperty"), "", { dev: "The body must be a JSON object." });
      }
      for (const key of Object.keys(value)) {
        if (SERVER_OWNED.has(key) || readOnly.has(key)) {
          throw new ApiError(entry(catalog, "readOnlyProperty"), key, { dev: `"${key}" is set by the server; remove it from the body.` });
        }
      }
      if (!fn(value)) {
        const first = fn.errors?.[0];
        if (first?.keyword === "additionalProperties") throw unknownProperties(fn, value, first, catalog);
        throw toApiError(first, catalog, "body");
      }
    },
    query(action, value) {
      const fn = queryFns.get(action)!;
      const copy: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        Object.defineProperty(copy, k, { value: Array.isArray(v) ? v[v.length - 1] : v, enumerable: true, writable: true, configurable: true });
      }
      if (!fn(copy)) throw toApiError(fn.errors?.[0], catalog, "query");
      return copy;
    },
  };
}

/** Most unknown properties one answer names: a body of thousands names its first ones, and says there are more. */
export const MAX_UNKNOWN_NAMED = 20;

/**
 * One unknownProperty answer for every unknown property of the object `first` found one in, so that a
 * body with six typos takes one round trip, not six. Only a refused body pays for it: ajv stops at the
 * first error (the valid path stays as fast as it is), so the others are found by validating a copy
 * again without each one found, at most MAX_UNKNOWN_NAMED times. `property` is the first one in the
 * body (the one a single error names); `dev` names them all, sorted.
 * @example a body { title, colour: 1, size: 2 } → property "colour", dev '"colour" and "size" are not properties …'
 */
function unknownProperties(fn: ValidateFunction, value: object, first: ErrorObject, catalog: Catalog): ApiError {
  const names = [propertyOf(first)];
  const copy = structuredClone(value);
  const holder = valueAt(copy, first.instancePath);
  let more = false;
  for (let error = first; holder !== undefined; ) {
    const key = String((error.params as { additionalProperty?: unknown }).additionalProperty);
    // Not there to remove (a schema that reads the body elsewhere): validating again would find it again.
    if (!Object.hasOwn(holder, key)) break;
    delete holder[key];
    if (fn(copy)) break;
    const next = fn.errors?.[0];
    if (next?.keyword !== "additionalProperties" || next.instancePath !== first.instancePath) break;
    if (names.length === MAX_UNKNOWN_NAMED) {
      more = true;
      break;
    }
    names.push(propertyOf(next));
    error = next;
  }
  const listed = [...names].sort().map((n) => `"${n}"`);
  const dev =
    listed.length === 1 && !more
      ? `${listed[0]} is not a property of this resource; remove it or correct its spelling.`
      : `${more ? `${listed.join(", ")} and more` : `${listed.slice(0, -1).join(", ")} and ${listed.at(-1)}`} are not properties of this resource; remove them or correct their spelling.`;
  return new ApiError(entry(catalog, "unknownProperty"), names[0], { dev });
}

/** The object at an ajv instancePath ("/address", "/tags/0") of a value, if it is one. */
function valueAt(value: unknown, instancePath: string): Record<string, unknown> | undefined {
  let v = value;
  for (const token of instancePath.split("/").slice(1)) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[token.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** The dotted property path of an ajv error ("address.city", "tags.0"). */
function propertyOf(e: ErrorObject): string {
  const path = e.instancePath
    .split("/")
    .slice(1)
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (e.keyword === "required") path.push(String((e.params as { missingProperty: string }).missingProperty));
  if (e.keyword === "additionalProperties") path.push(String((e.params as { additionalProperty: string }).additionalProperty));
  return path.join(".");
}

/** An example of each format the generator knows, shown when a value does not match it. */
const FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  "date-time": "2024-05-01T12:00:00Z",
  date: "2024-05-01",
  time: "12:00:00Z",
  email: "ann@example.com",
  uri: "https://example.com/page",
  uuid: "0f8fad5b-d9cb-469f-a165-70867728950e",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  hostname: "example.com",
};

/** JSON types in words: "integer" → "an integer". */
const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  null: "null",
};

/**
 * What is wrong with the value, in words: the allowed values of an enum, the format with an example,
 * the type (in a body, where nothing is converted, with how to send it); else ajv's own message.
 * @example whatIsWrong(an enum error at "status", …) → 'status must be one of "draft", "published"'
 */
function whatIsWrong(e: ErrorObject, property: string, where: "body" | "query"): string {
  const subject = property || "the value";
  const list = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v)).join(", ");
  switch (e.keyword) {
    case "enum":
      return `${subject} must be one of ${list((e.params as { allowedValues: readonly unknown[] }).allowedValues)}`;
    case "const":
      return `${subject} must be ${list([(e.params as { allowedValue: unknown }).allowedValue])}`;
    case "format": {
      const format = String((e.params as { format: string }).format);
      const example = FORMAT_EXAMPLES[format];
      return `${subject} must be a valid ${format}${example === undefined ? "" : ` such as "${example}"`}`;
    }
    case "type": {
      const types = String((e.params as { type: string | string[] }).type).split(",");
      const words = `${subject} must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(" or ")}`;
      const scalar = types.some((t) => t === "number" || t === "integer" || t === "boolean");
      return where === "body" && scalar ? `${words}. Values are never converted: send 12 and true, not "12" and "true"` : words;
    }
    default:
      return `${subject} ${e.message ?? "is not valid"}`;
  }
}

function toApiError(e: ErrorObject | undefined, catalog: Catalog, where: "body" | "query"): ApiError {
  if (!e) return new ApiError(entry(catalog, where === "query" ? "invalidParameter" : "invalidProperty"));
  const property = propertyOf(e);
  if (where === "query") return new ApiError(entry(catalog, "invalidParameter"), property, { dev: `Query parameter ${whatIsWrong(e, property, where)}.` });
  switch (e.keyword) {
    case "required":
      return new ApiError(entry(catalog, "missingProperty"), property, { dev: `The body lacks "${property}", which is required.` });
    case "additionalProperties":
      return new ApiError(entry(catalog, "unknownProperty"), property, { dev: `"${property}" is not a property of this resource; remove it or correct its spelling.` });
    default:
      return new ApiError(entry(catalog, "invalidProperty"), property, { dev: `${whatIsWrong(e, property, where)}.` });
  }
}
