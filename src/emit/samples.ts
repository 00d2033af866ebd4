/**
 * Sample values that satisfy a schema, for the generated tests and the docs' examples. Decided at
 * generate time and checked with ajv; a schema no sample can satisfy yields undefined.
 */
import { Ajv } from "ajv";
import formatsPlugin from "ajv-formats";
import RandExp from "randexp";
import type { JsonSchema } from "../model/types.js";

type Schema = Record<string, unknown>;

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
function validator(): Ajv {
  if (ajv) return ajv;
  // Each schema is validated against a few dozen samples only: skipping code optimization halves compile time.
  ajv = new Ajv({ strict: false, allowUnionTypes: true, validateFormats: true, code: { optimize: false } });
  type Plugin = (a: Ajv) => unknown;
  ((formatsPlugin as unknown as { default?: Plugin }).default ?? (formatsPlugin as unknown as Plugin))(ajv);
  return ajv;
}

const compiled = new WeakMap<object, ((value: unknown) => boolean) | null>();

/** True when `value` is valid against `schema` (each schema object is compiled once). */
export function isValidSample(schema: JsonSchema, value: unknown): boolean {
  if (typeof schema === "boolean") return schema;
  let fn = compiled.get(schema);
  if (fn === undefined) {
    try {
      const v = validator().compile(schema as object);
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
 * undefined when none was found.
 * @example sampleOf({ type: "integer", minimum: 3 }) === 3
 */
export function sampleOf(schema: JsonSchema, seed = 0): unknown {
  const value = build(schema, seed, 0);
  return value !== undefined && isValidSample(schema, value) ? value : undefined;
}

function build(schema: JsonSchema, seed: number, depth: number): unknown {
  if (schema === true || schema === undefined) return `sample-${seed}`;
  if (schema === false || depth > 6) return undefined;
  const s = schema as Schema;
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[seed % s.enum.length];
  if (Array.isArray(s.examples) && s.examples.length > 0 && seed === 0) return s.examples[0];
  if (s.default !== undefined && seed === 0) return s.default;
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
    try {
      const gen = new RandExp(s.pattern);
      gen.max = 8;
      let seedState = seed + 1;
      gen.randInt = (a: number, b: number) => a + ((seedState = (seedState * 48271) % 2147483647) % (b - a + 1));
      value = gen.gen();
    } catch {
      return undefined;
    }
  } else {
    value = seed === 0 ? "sample" : `sample-${seed}`;
  }
  const min = Number(s.minLength ?? 0);
  const max = s.maxLength === undefined ? Infinity : Number(s.maxLength);
  if (value.length < min && s.pattern === undefined && format === undefined) value = value.padEnd(min, "x");
  if (value.length > max && s.pattern === undefined && format === undefined) value = seed === 0 ? value.slice(0, max) : (String(seed) + value).slice(0, max);
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
