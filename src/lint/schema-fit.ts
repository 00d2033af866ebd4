/**
 * Whether a declared schema accepts a value the server makes (an id, a timestamp): the keywords that can
 * refuse a string or a number are judged, each as JSON Schema 2020-12 defines it; the others (properties,
 * items …) cannot refuse one and are passed over.
 */
import { createRequire } from "node:module";
import { isObject } from "../model/build-schema.js";
import { compileLinear } from "../model/patterns.js";
import type { Deref } from "../model/shared.js";
import type { JsonSchema } from "../model/types.js";

/** The keyword of a schema that refuses a value, and what it says, in words. */
export interface Misfit {
  readonly keyword: string;
  /** The keyword as written, e.g. `"maxLength": 10`; for `type`, the declared type with its article ("an integer"). */
  readonly says: string;
}

/** What a value is beyond its JSON type: the formats it satisfies ("uuid", "date-time", "int64" …). */
export interface Made {
  readonly value: string | number;
  readonly formats: readonly string[];
}

const require = createRequire(import.meta.url);
const { fullFormats } = require("ajv-formats/dist/formats") as typeof import("ajv-formats/dist/formats.js");

/**
 * True when the service's validator would refuse `made` for `format`, as ajv-formats checks it: a format
 * `made` satisfies by construction passes; one the service does not know is not checked (unknown-format
 * says so) and passes; one of another JSON type (a number format on a string) is not applied and passes;
 * any other is tested on the value ("int32" on 1 passes, "uuid" on "cus_…" does not).
 */
function formatRefuses(format: string, made: Made): boolean {
  if (made.formats.includes(format)) return false;
  if (!Object.hasOwn(fullFormats, format)) return false;
  const def = fullFormats[format as keyof typeof fullFormats] as unknown;
  const value = made.value;
  const test = (check: unknown, v: string | number): boolean =>
    check instanceof RegExp ? typeof v === "string" && check.test(v) : typeof check === "function" ? Boolean((check as (x: unknown) => unknown)(v)) : true;
  if (def === true) return false;
  if (isObject(def) && "validate" in def) {
    const type = (def as { type?: string }).type ?? "string";
    if (type !== typeof value) return false;
    return !test((def as { validate: unknown }).validate, value);
  }
  return typeof value === "string" && !test(def, value);
}

/** Deepest nesting of $refs and combinators judged (a recursive schema ends here: what is deeper passes). */
const MAX_DEPTH = 32;

/**
 * The first keyword of `schema` that refuses `made`, or undefined when it accepts it. A shared `$ref` is
 * followed through `deref` and judged with the keywords beside it; `anyOf`/`oneOf` fit when one branch
 * does; `not`, `if` and the keywords of other types are not judged.
 * @example misfit({ type: "integer" }, { value: "0190…", formats: ["uuid"] })?.says === "an integer"
 */
export function misfit(schema: JsonSchema, made: Made, deref?: Deref, depth = 0): Misfit | undefined {
  if (schema === false) return { keyword: "false", says: "false (nothing)" };
  if (!isObject(schema) || depth > MAX_DEPTH) return undefined;
  if (typeof schema.$ref === "string" && deref) {
    const target = deref({ $ref: schema.$ref });
    const found = target === undefined || isObject(target) && typeof target.$ref === "string" ? undefined : misfit(target, made, deref, depth + 1);
    if (found) return found;
  }
  const value = made.value;
  const said = (keyword: string) => ({ keyword, says: `"${keyword}": ${JSON.stringify(schema[keyword])}` });
  if (schema.type !== undefined) {
    const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((t): t is string => typeof t === "string");
    const ok = typeof value === "string" ? types.includes("string") : types.includes("number") || (types.includes("integer") && Number.isInteger(value));
    if (!ok) return { keyword: "type", says: typeWords(types) };
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return said("enum");
  if (Object.hasOwn(schema, "const") && schema.const !== value) return said("const");
  if (typeof schema.format === "string" && formatRefuses(schema.format, made)) return said("format");
  if (typeof value === "string") {
    const length = [...value].length;
    if (typeof schema.minLength === "number" && length < schema.minLength) return said("minLength");
    if (typeof schema.maxLength === "number" && length > schema.maxLength) return said("maxLength");
    if (typeof schema.pattern === "string" && !matches(schema.pattern, value)) return said("pattern");
  } else {
    if (typeof schema.minimum === "number" && value < schema.minimum) return said("minimum");
    if (typeof schema.maximum === "number" && value > schema.maximum) return said("maximum");
    if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum) return said("exclusiveMinimum");
    if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum) return said("exclusiveMaximum");
    if (typeof schema.multipleOf === "number" && schema.multipleOf > 0 && !Number.isInteger(value / schema.multipleOf)) return said("multipleOf");
  }
  for (const part of Array.isArray(schema.allOf) ? (schema.allOf as JsonSchema[]) : []) {
    const found = misfit(part, made, deref, depth + 1);
    if (found) return found;
  }
  for (const keyword of ["anyOf", "oneOf"]) {
    const branches = schema[keyword];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const found = (branches as JsonSchema[]).map((b) => misfit(b, made, deref, depth + 1));
    if (found.every((f) => f !== undefined)) return found[0];
  }
  return undefined;
}

/** A pattern tested as the service tests patterns; one RE2 cannot compile is invalid-pattern's to report, not a misfit. */
function matches(pattern: string, value: string): boolean {
  try {
    return compileLinear(pattern).test(value);
  } catch {
    return true;
  }
}

/** Declared types in words: ["integer"] → "an integer", ["object", "null"] → "an object or null". */
function typeWords(types: readonly string[]): string {
  const word = (t: string) => (t === "null" ? "null" : `${/^[aeiou]/.test(t) ? "an" : "a"} ${t}`);
  return types.length === 0 ? "no type" : types.map(word).join(" or ");
}
