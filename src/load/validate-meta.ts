/**
 * Validates raw documents against the definition format's meta-schemas (schemas/*.json) with ajv.
 * Compiling them costs more than a whole check of a small project, so `npm run build` precompiles the
 * validators into dist/meta-validators.precompiled.cjs (src/build/precompile-validators.ts). That module
 * is used only while the fingerprint it was built with (ajv and ajv-formats versions, options, schema
 * files) matches the one computed now; otherwise, or without dist (tests run src/ directly), the
 * validators are compiled at run time.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import type { Ajv2020, ErrorObject, Options, ValidateFunction } from "ajv/dist/2020.js";
import { childPointer, tokensOf, type Diagnostic } from "../diagnostics/diagnostic.js";
import { report } from "../diagnostics/report.js";
import { packagePath } from "../paths.js";

const require = createRequire(import.meta.url);

const DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema";

/**
 * ajv's generated code gathers the errors of every subschema call with `vErrors.concat(...)`, a copy
 * of all errors so far per call: a file with many errors was quadratic (20 000 bad "type"s: 7 s in
 * validation alone). Appending in place gathers the same errors in the same order in linear time.
 */
export function appendErrorsInPlace(code: string): string {
  return code.replace(CONCAT, APPEND);
}

const CONCAT = /vErrors = vErrors === null \? ([\w$.]+) : vErrors\.concat\(\1\);/g;
const APPEND = "vErrors = vErrors === null ? $1 : ($1.forEach((e) => vErrors.push(e)), vErrors);";

/** ajv's options for the meta-schemas: every error, with the failing data and schema (for fixes). */
const OPTIONS: Options = { allErrors: true, verbose: true, strict: false, code: { process: appendErrorsInPlace } };

/** The validators a check runs; the precompiled module exports them under the same names. */
export interface Validators {
  readonly service: ValidateFunction;
  readonly resourceKeywords: ValidateFunction;
  readonly draft2020: ValidateFunction;
}

/** The texts of schemas/service.schema.json and schemas/resource.schema.json. */
export interface MetaSchemaSources {
  readonly service: string;
  readonly resource: string;
}

/** The precompiled module (build output; `npm run build` writes it). */
export const PRECOMPILED_FILE = packagePath("dist", "meta-validators.precompiled.cjs");

let cached: Validators | undefined;

/** The validators, once per process: precompiled when they are current, else compiled now. */
function validators(): Validators {
  if (cached) return cached;
  const sources = readMetaSchemas();
  cached = precompiledValidators(sources) ?? compileValidators(sources);
  return cached;
}

/** The meta-schema files as they are now (their text is part of the fingerprint). */
export function readMetaSchemas(): MetaSchemaSources {
  const read = (name: string) => fs.readFileSync(packagePath("schemas", name), "utf8");
  return { service: read("service.schema.json"), resource: read("resource.schema.json") };
}

/** What compiled validators depend on: the ajv and ajv-formats versions, the options and the schema files. */
export function metaFingerprint(sources: MetaSchemaSources): string {
  const version = (pkg: string) => (require(`${pkg}/package.json`) as { version: string }).version;
  // JSON.stringify drops the code.process function: its rewrite stands for it (not its source, which
  // differs between tsc's output and tsx's).
  const parts = [version("ajv"), version("ajv-formats"), JSON.stringify(OPTIONS), CONCAT.source, APPEND, sources.service, sources.resource];
  return crypto.createHash("sha256").update(parts.join("\0")).digest("hex");
}

/**
 * An ajv instance holding the meta-schemas, and the ref of each validator in it. `extra` adds options
 * that do not change what is valid (the build's `code.source`).
 */
export function metaSchemaAjv(sources: MetaSchemaSources, extra: Options = {}): { ajv: Ajv2020; refs: Record<keyof Validators, string> } {
  // Loaded only here: a run with the precompiled validators never loads ajv's compiler.
  const { Ajv2020 } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
  type Plugin = (a: Ajv2020) => unknown;
  const formatsPlugin = require("ajv-formats") as { default?: Plugin } & Plugin;
  const ajv = new Ajv2020({ ...OPTIONS, ...extra, code: { ...OPTIONS.code, ...extra.code } });
  (formatsPlugin.default ?? formatsPlugin)(ajv);
  const service = JSON.parse(sources.service) as { $id: string };
  const resource = JSON.parse(sources.resource) as { $id: string };
  ajv.addSchema(service).addSchema(resource);
  return { ajv, refs: { service: service.$id, resourceKeywords: `${resource.$id}#/$defs/keywords`, draft2020: DRAFT_2020 } };
}

/** The validators compiled now. */
export function compileValidators(sources: MetaSchemaSources): Validators {
  const { ajv, refs } = metaSchemaAjv(sources);
  const get = (ref: string) => ajv.getSchema(ref)!;
  return { service: get(refs.service), resourceKeywords: get(refs.resourceKeywords), draft2020: get(refs.draft2020) };
}

/** The precompiled validators, or undefined when there are none or they were built from something else. */
export function precompiledValidators(sources: MetaSchemaSources): Validators | undefined {
  let built: Partial<Validators> & { fingerprint?: string };
  try {
    built = require(PRECOMPILED_FILE) as typeof built;
  } catch {
    return undefined;
  }
  if (built.fingerprint !== metaFingerprint(sources) || !built.service || !built.resourceKeywords || !built.draft2020) return undefined;
  return { service: built.service, resourceKeywords: built.resourceKeywords, draft2020: built.draft2020 };
}

/** Diagnostics for service.json against schemas/service.schema.json. */
export function validateService(file: string, value: unknown): Diagnostic[] {
  const v = validators().service;
  return v(value) ? [] : toDiagnostics(file, v.errors ?? [], "meta-schema");
}

/** Diagnostics for a resource file: a valid draft 2020-12 schema, with valid resourcery keywords. */
export function validateResource(file: string, value: unknown): Diagnostic[] {
  const { draft2020, resourceKeywords } = validators();
  const format = resourceKeywords(value) ? [] : toDiagnostics(file, resourceKeywords.errors ?? [], "meta-schema");
  // One finding per place: a root "type": "obj" breaks both, and the format's own error has the better fix.
  const taken = new Set(format.map((d) => d.pointer));
  const schema = draft2020(value) ? [] : toDiagnostics(file, draft2020.errors ?? [], "invalid-schema").filter((d) => !taken.has(d.pointer));
  return [...schema, ...format];
}

/** Turns ajv errors into diagnostics: the most specific error per location, with a fix for each. */
function toDiagnostics(file: string, errors: readonly ErrorObject[], code: "meta-schema" | "invalid-schema"): Diagnostic[] {
  const places = errorPlaces(errors);
  const relevant = errors.filter((e) => !["anyOf", "oneOf", "allOf", "if", "$ref"].includes(e.keyword) && !losingAlternative(e, places));
  const seen = new Set<string>();
  const out: Diagnostic[] = [];
  for (const e of relevant.length ? relevant : errors) {
    const { pointer, kind, problem, fix } = explain(e);
    const key = `${pointer}|${problem}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(
      code === "meta-schema"
        ? report("meta-schema", { file, pointer, kind }, { problem, fix })
        : report("invalid-schema", { file, pointer, kind }, { problem }),
    );
  }
  return out;
}

/** Per instance path: its anyOf/oneOf errors, and whether an error there says more than a type or a combinator. */
interface ErrorPlaces {
  readonly combinators: ReadonlyMap<string, readonly ErrorObject[]>;
  readonly specific: ReadonlySet<string>;
}

/**
 * The errors indexed by instance path, once: looking them up by a scan of every error, per error,
 * made a file with thousands of errors quadratic (20 000 bad "type"s took 28 s).
 */
function errorPlaces(errors: readonly ErrorObject[]): ErrorPlaces {
  const combinators = new Map<string, ErrorObject[]>();
  const specific = new Set<string>();
  const skip = ["type", "anyOf", "oneOf", "allOf", "if", "$ref"];
  for (const e of errors) {
    if (e.keyword === "anyOf" || e.keyword === "oneOf") {
      const list = combinators.get(e.instancePath);
      if (list) list.push(e);
      else combinators.set(e.instancePath, [e]);
    }
    if (!skip.includes(e.keyword)) specific.add(e.instancePath);
  }
  return { combinators, specific };
}

/**
 * A "type" error from one branch of an anyOf/oneOf whose sibling branch matched the type and failed
 * for a better reason ("type": "strin" fails both the enum of type names and "must be an array"):
 * only the sibling's error says what is wrong.
 */
function losingAlternative(e: ErrorObject, places: ErrorPlaces): boolean {
  if (e.keyword !== "type") return false;
  const parent = places.combinators.get(e.instancePath)?.find((c) => e.schemaPath.startsWith(`${c.schemaPath}/`));
  if (!parent) return false;
  // The sibling's schemaPath may run through a $ref ("#/$defs/simpleTypes/enum"), so match on the instance.
  return places.specific.has(e.instancePath);
}

/** Where an ajv error points, what it means in words, and how to fix it. */
function explain(e: ErrorObject): { pointer: string; kind: "key" | "value"; problem: string; fix: string } {
  const at = e.instancePath;
  const where = describe(at);
  const schemaFix = (e.parentSchema as { "x-fix"?: string } | undefined)?.["x-fix"];
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      return { pointer: at, kind: "value", problem: `missing required key "${p.missingProperty}" in ${where}`, fix: `add "${p.missingProperty}"` };
    case "additionalProperties": {
      const allowed = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {}).filter((k) => k !== "$schema");
      const name = String(p.additionalProperty);
      return {
        pointer: childPointer(at, name),
        kind: "key",
        problem: `unknown key "${name}" in ${where}`,
        fix: allowed.length ? `remove it or use one of: ${allowed.join(", ")}` : "remove it",
      };
    }
    case "type":
      return { pointer: at, kind: "value", problem: `${where} must be of type ${String(p.type).replace(",", " or ")}`, fix: schemaFix ?? `give a value of type ${p.type}` };
    case "enum": {
      const allowed = (p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ");
      return { pointer: at, kind: "value", problem: `${where} is ${JSON.stringify(e.data)}, not one of ${allowed}`, fix: schemaFix ?? `use one of: ${allowed}` };
    }
    case "const":
      return { pointer: at, kind: "value", problem: `${where} must be ${JSON.stringify(p.allowedValue)}`, fix: schemaFix ?? `set it to ${JSON.stringify(p.allowedValue)}` };
    case "pattern":
    case "format":
      return { pointer: at, kind: "value", problem: `${where} is not valid: ${JSON.stringify(withoutPassword(e.data))}`, fix: schemaFix ?? `give a value that ${e.message ?? "is valid"}` };
    case "uniqueItems":
      return { pointer: at, kind: "value", problem: `${where} has the same item twice (items ${p.j} and ${p.i})`, fix: "remove the repeated item" };
    case "minItems":
      return { pointer: at, kind: "value", problem: `${where} is empty`, fix: `give at least ${p.limit} item${p.limit === 1 ? "" : "s"}` };
    case "minLength":
      return { pointer: at, kind: "value", problem: `${where} is an empty string`, fix: "give a non-empty value" };
    default:
      return { pointer: at, kind: "value", problem: `${where} ${e.message ?? "is not valid"}`, fix: schemaFix ?? "see the definition format in the README" };
  }
}

/** Names the value at a pointer in words (the pointer itself is printed beside the message). */
function describe(pointer: string): string {
  const tokens = tokensOf(pointer);
  const last = tokens.at(-1);
  if (last === undefined) return "the document";
  if (/^\d+$/.test(last)) return tokens.length > 1 ? `item ${last} of "${tokens.at(-2)}"` : `item ${last}`;
  return `"${last}"`;
}

/** A URL's password written as "***": a diagnostic is printed into CI logs, which must not show it. */
function withoutPassword(value: unknown): unknown {
  return typeof value === "string" ? value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):[^/?#@]*@/i, "$1:***@") : value;
}
