/**
 * The sample data of the generated contract tests and of the docs' examples, decided at generate time:
 * request bodies per resource (its own whole-body `examples` first, then values its properties'
 * `examples`/`default` and the generator give), parameters and a response per action, and, where no
 * sample satisfies a schema, why: the tests skip what they cannot feed and print that reason.
 */
import { memo } from "./memo.js";
import { SERVER_OWNED } from "../model/conventions.js";
import type { Action, Field, JsonSchema, Resource } from "../model/types.js";
import { firstSample, isValidSample, SAMPLE_SEEDS, sampleOf, sharedSchemasKey } from "./samples.js";
import { bodySchemaOf } from "./spec.js";

type Json = Record<string, unknown>;
type BodySchema = { properties: Json; required?: string[] };

/** A resource's sample bodies, or why it has none. */
export interface ResourceSamples {
  /** Valid bodies without links (the tests create link targets), no two alike in a unique property. */
  readonly bodies: readonly unknown[];
  /** A wrongly typed value of one property, for the 400 invalidProperty case. */
  readonly invalid?: { readonly property: string; readonly value: unknown };
  /** Why `bodies` is empty. */
  readonly noBody?: string;
}

/** An action's sample parameters and response (what the handler's stub answers), or why either is missing. */
export interface ActionSamples {
  readonly params?: unknown;
  readonly noParams?: string;
  readonly response?: { readonly value: unknown };
  readonly noResponse?: string;
}

/** Wrongly typed values by field kind, for the 400 invalidProperty test. */
const WRONG: Readonly<Record<string, unknown>> = { string: 12345, number: "not a number", integer: "not a number", boolean: "yes" };

const sampleCache = new WeakMap<Resource, ResourceSamples>();
const exampleCache = new WeakMap<Resource, { body: unknown }>();

/** The resource's sample bodies (cached: the tests, the docs and the README all ask). */
export function resourceSamples(resource: Resource): ResourceSamples {
  let found = sampleCache.get(resource);
  // A function of the resource and the shared schemas only: kept between generations (emit/memo.ts).
  if (!found) sampleCache.set(resource, (found = memo().get("resource samples", [resource, sharedSchemasKey()], () => computeSamples(resource))));
  return found;
}

/**
 * The first of resourceSamples(resource).bodies, without computing the others: the docs' examples
 * need one body per resource, the contract tests all of them.
 */
export function exampleBody(resource: Resource): unknown {
  const computed = sampleCache.get(resource);
  if (computed) return computed.bodies[0];
  let found = exampleCache.get(resource);
  if (found === undefined) {
    // Asked once per operation and link that shows the resource: the memo's entry is looked up (its key digested) once.
    const all = memo().find<ResourceSamples>("resource samples", [resource, sharedSchemasKey()]);
    if (all) found = { body: all.bodies[0] };
    else {
      const schema = sampleSchemaOf(resource);
      found = { body: rootExamples(resource, schema)[0] ?? firstSample(schema) };
    }
    exampleCache.set(resource, found);
  }
  return found.body;
}

/** The action's sample parameters (an object: they become the query string) and response. */
export function actionSamples(action: Action): ActionSamples {
  const params = firstSample(action.query);
  const response = firstSample(action.response);
  const isObject = params !== null && typeof params === "object" && !Array.isArray(params);
  return {
    ...(isObject ? { params } : { noParams: whyNoSample(action.query, PARAMS) }),
    ...(response === undefined ? { noResponse: whyNoSample(action.response, RESPONSE) } : { response: { value: response } }),
  };
}

/** The body schema the samples satisfy: the resource's body schema with its links left out. */
function sampleSchemaOf(resource: Resource): { type: "object"; additionalProperties: false; properties: Json; required: string[] } {
  const schema = bodySchemaOf(resource) as BodySchema;
  const links = new Set(resource.fields.filter((f) => f.link).map((f) => f.name));
  const properties = Object.fromEntries(Object.entries(schema.properties).filter(([k]) => !links.has(k)));
  return { ...schema, type: "object", additionalProperties: false, properties, required: (schema.required ?? []).filter((r) => !links.has(r)) };
}

/**
 * The resource's own whole-body `examples` (at its root) that make valid bodies: each without what a
 * body cannot carry (server-owned properties, the owner, links: the tests make their own), kept only
 * when the rest is valid against the body schema. An example in the representation's shape (with id
 * and meta) thus serves as well as one in the body's.
 */
function rootExamples(resource: Resource, schema: JsonSchema): unknown[] {
  const examples = typeof resource.schema === "object" ? resource.schema.examples : undefined;
  if (!Array.isArray(examples)) return [];
  const dropped = new Set([...SERVER_OWNED, ...(resource.owner ? [resource.owner] : []), ...resource.fields.filter((f) => f.link).map((f) => f.name)]);
  const out: unknown[] = [];
  for (const example of examples) {
    if (example === null || typeof example !== "object" || Array.isArray(example)) continue;
    const body: Json = {};
    for (const [k, v] of Object.entries(example as Json)) if (!dropped.has(k)) Object.defineProperty(body, k, { value: v, enumerable: true, writable: true, configurable: true });
    if (isValidSample(schema, body)) out.push(body);
  }
  return out;
}

function computeSamples(resource: Resource): ResourceSamples {
  const schema = sampleSchemaOf(resource);
  const bodies: unknown[] = [];
  const seen = new Set<string>();
  // A unique property's values must differ from body to body, or the second instance made is a 409.
  const unique = resource.unique.filter((u) => Object.hasOwn(schema.properties, u));
  const uniqueSeen = new Map(unique.map((u) => [u, new Set<string>()]));
  const add = (body: unknown) => {
    const json = JSON.stringify(body);
    if (seen.has(json)) return;
    seen.add(json);
    const values: [string, string][] = [];
    for (const u of unique) {
      if (Object.hasOwn(body as Json, u)) values.push([u, JSON.stringify((body as Json)[u])]);
    }
    if (values.some(([u, v]) => uniqueSeen.get(u)!.has(v))) return;
    for (const [u, v] of values) uniqueSeen.get(u)!.add(v);
    bodies.push(body);
  };
  for (const example of rootExamples(resource, schema)) add(example);
  for (let seed = 0; seed < SAMPLE_SEEDS; seed++) {
    const body = sampleOf(schema, seed);
    if (body !== undefined) add(body);
  }
  const invalid = wronglyTyped(resource, schema.properties);
  return { bodies, ...(invalid ? { invalid } : {}), ...(bodies.length === 0 ? { noBody: whyNoSample(schema, BODY) } : {}) };
}

/**
 * A property and a value of the wrong type for it, if there is a scalar property without an enum (whose
 * refusal would be about the enum) and its schema really rejects the value (not a string-or-number).
 */
function wronglyTyped(resource: Resource, properties: Json): { property: string; value: unknown } | undefined {
  const candidate = (f: Field) =>
    f.scalar &&
    Object.hasOwn(WRONG, f.kind) &&
    Object.hasOwn(properties, f.name) &&
    !(f.schema as { enum?: unknown }).enum &&
    !isValidSample(properties[f.name] as JsonSchema, WRONG[f.kind]);
  const target = resource.fields.find(candidate);
  return target ? { property: target.name, value: WRONG[target.kind] } : undefined;
}

/** What a reason for a missing sample names: the schema, its members, and how to give a sample. */
interface Subject {
  readonly schema: string;
  readonly member: "property" | "parameter";
  readonly memberHint: string;
  readonly hint: string;
}

const BODY: Subject = {
  schema: "body schema",
  member: "property",
  memberHint: `give it a valid "examples" entry, or the resource valid whole-body "examples" at its root`,
  hint: `give the resource valid whole-body "examples" at its root`,
};
const PARAMS: Subject = { schema: "query schema", member: "parameter", memberHint: `give it a valid "examples" entry`, hint: `give the query schema valid "examples"` };
const RESPONSE: Subject = { schema: "response schema", member: "property", memberHint: `give it a valid "examples" entry`, hint: `give the response schema valid "examples"` };

/**
 * Why no sample of a schema was found: the first required member of an object no value was found
 * for, else the schema as a whole; with how to give one.
 */
function whyNoSample(schema: JsonSchema, subject: Subject): string {
  const s = typeof schema === "object" ? (schema as Json) : {};
  const properties = (s.properties && typeof s.properties === "object" ? s.properties : {}) as Json;
  const required = Array.isArray(s.required) ? (s.required as unknown[]) : [];
  for (const name of required) {
    if (typeof name !== "string" || !Object.hasOwn(properties, name)) continue;
    if (firstSample(properties[name] as JsonSchema) === undefined) {
      return `no value satisfies the schema of the required ${subject.member} ${JSON.stringify(name)} (${subject.memberHint})`;
    }
  }
  return `no value satisfies the ${subject.schema} as a whole (${subject.hint})`;
}
