/**
 * Emits src/generated/validators.js: every request validator of the service, compiled at generate time
 * into ajv's standalone code, so that the service compiles no schema when it starts (at 850 resources
 * compiling them was half of a start). They are compiled as the runtime would compile them, by the
 * runtime's own text (model/validator-schemas.ts, model/ajv-settings.ts), and the module carries the
 * fingerprint of the schemas they were compiled from, which the runtime compares before using them.
 *
 * The module is plain JavaScript that tsc never reads (the package's tsconfig takes no .js): 13 MB for
 * Stripe's schemas, and 8 MB of 850 distinct bodies cost tsc 31 s more as TypeScript under `@ts-nocheck`,
 * 67 s more with `allowJs` (bench/README.md). The generated server loads it from the package root (as it
 * finds docs/).
 *
 * Definitions are untrusted, and ajv writes their values into this code: ajv's code generator (the same
 * that builds validators through `new Function` at start-up otherwise) writes every value it takes from a
 * schema — patterns, enum and const values, defaults, property names, formats, the schema itself — as a
 * JSON literal, with U+2028 and U+2029 escaped, or as a property access by such a literal; names in the
 * code are ajv's own. The names this module adds (collections, actions) go through escape.ts. Annotations
 * (titles, descriptions, examples) are not compiled, so they are not in it at all.
 */
import { createRequire } from "node:module";
import type { Ajv } from "ajv";
import { compileDistinct, validatorAjvs, validatorSchemas, validatorsFingerprint, type DistinctValidators, type Schema, type ValidatedSpec, type ValidatorAjvs, type ValidatorSchemas } from "../model/validator-schemas.js";
import { setOwn, SHARED_REF_PREFIX } from "../model/build-schema.js";
import { SHARED_SCHEMAS_ID } from "../model/conventions.js";
import { SCHEMA_MAPS } from "../model/schema-walk.js";
import { withRefs } from "../model/shared.js";
import type { Model } from "../model/types.js";
import { compileCheckKeeping, compileSetOf, type KeptAjvs } from "../lint/compile-check.js";
import type { EmittedFile, LazyFile } from "./emitted-file.js";
import { lineComment, str } from "./shared/escape.js";
import { tsHeader } from "./shared/header.js";
import { specOf } from "./spec.js";

const require = createRequire(import.meta.url);

/** The validators of one ajv instance, compiled once per distinct schema (the j-th exported as v<j>). */
interface Compiled {
  readonly ajv: Ajv;
  readonly validators: DistinctValidators;
}

/** The path of the module in the package. */
export const VALIDATORS_FILE = "src/generated/validators.js";

/** What the service's validators are compiled from: its spec's schemas, without annotations. */
export function validatorSchemasOf(model: Model): ValidatorSchemas {
  return validatorSchemas(specOf(model) as unknown as ValidatedSpec);
}

/** Not a file of the package: what the worker that compiles the validators sends the schema-compile rule's findings as (JSON). */
export const SCHEMA_COMPILE_FINDINGS = "#schema-compile";

/**
 * src/generated/validators.js, compiled when rendered (in a worker thread when the schemas are many: see
 * emit/index.ts); with `model`, first the findings of the schema-compile rule on it (SCHEMA_COMPILE_FINDINGS),
 * so that `generate`'s check need not compile the schemas on its own thread.
 */
export function validatorsFiles(schemas: ValidatorSchemas, model?: Model): LazyFile[] {
  if (model === undefined) return [{ path: VALIDATORS_FILE, owner: "generated", render: () => validatorsModule(schemas) }];
  // The rule's compile serves the module too: what it compiled (the shared schemas above all) is not compiled again.
  const set = compileSetOf(model);
  let reuse: Reusable | undefined;
  const findings = (): string => {
    const { diagnostics, kept } = compileCheckKeeping(set, true);
    if (diagnostics.length === 0) reuse = { ...kept, shared: new Map(set.shared.map((s) => [s.id, JSON.stringify(s.schema)])) };
    return JSON.stringify(diagnostics);
  };
  return [
    { path: SCHEMA_COMPILE_FINDINGS, owner: "generated", render: findings },
    { path: VALIDATORS_FILE, owner: "generated", render: () => validatorsModule(schemas, reuse) },
  ];
}

/** The ajv instances the schema-compile rule compiled in (with each validator's code kept), and the shared schemas it added to them, by key. */
interface Reusable extends KeptAjvs {
  readonly shared: ReadonlyMap<string, string>;
}

/** src/generated/validators.js of `model`, compiled now. */
export function emitValidators(model: Model): EmittedFile[] {
  return [{ path: VALIDATORS_FILE, owner: "generated", contents: validatorsModule(validatorSchemasOf(model)) }];
}

/** The text of the module. */
export function validatorsModule(schemas: ValidatorSchemas, reuse?: Reusable): string {
  try {
    // Without ajv's optimisation of the code (a third of the compile time, for 9% more code, which V8 then
    // optimises alike) and without validating the schemas again (check did): ~2.8× faster.
    const split = sharedApart(schemas);
    const compiled = split ?? schemas;
    // The rule's instances hold the same shared schemas under the same keys, compiled (when they are the same text).
    const same = split !== undefined && reuse !== undefined && reuse.shared.size === split.apart.length && split.apart.every(([key, schema]) => reuse.shared.get(key) === JSON.stringify(schema));
    const ajvs = same && reuse.bodies && reuse.queries ? { bodies: reuse.bodies, queries: reuse.queries } : freshAjvs(schemas, split);
    for (const ajv of [ajvs.bodies, ajvs.queries]) {
      sourceOnly(ajv);
      // The rule validated every schema against the meta-schema already.
      (ajv.opts as { validateSchema: unknown }).validateSchema = false;
    }
    const { bodyList, hoisted } = hoistRepeated(compiled.bodies);
    for (const [key, schema] of hoisted) ajvs.bodies.addSchema(schema as object, key);
    const bodies = { ajv: ajvs.bodies, validators: compileDistinct(ajvs.bodies, "body", bodyList, (name) => `the body schema of ${name}`) };
    const queries = { ajv: ajvs.queries, validators: compileDistinct(ajvs.queries, "query", compiled.queries, (name) => `the query schema of the action ${name}`) };
    return moduleOf(validatorsFingerprint(schemas), bodies, queries);
  } catch (error) {
    // `check` compiles every schema as the service does, so this is not expected; should it happen, the
    // package is still generated and the service compiles its validators at start-up, and says there
    // which schema fails and why, as it did before validators were precompiled.
    return uncompiledModule(error instanceof Error ? error.message : String(error));
  }
}

/** New ajv instances for `schemas`, with the shared schemas apart when `split` says so. */
function freshAjvs(schemas: ValidatorSchemas, split: ReturnType<typeof sharedApart>): ValidatorAjvs {
  const ajvs = validatorAjvs(split ? { ...split, shared: undefined } : schemas, { standalone: true, quiet: true, optimize: false, checked: true });
  for (const ajv of [ajvs.bodies, ajvs.queries]) for (const [key, schema] of split?.apart ?? []) ajv.addSchema(schema as object, key);
  return ajvs;
}

/** Repeated subschemas shorter than this (JSON) stay where they are: a call would cost about what they do. */
const HOIST_FROM_CHARS = 400;
/** Keywords whose value is one subschema, and those whose value is a list or a map of them (the positions hoistRepeated looks in). */
const ONE_SCHEMA = new Set(["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"]);
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems", "items"]);
/** What a subschema may not hold to be compiled on its own as it is compiled in place: a reference or a name relative to where it is, or keywords whose meaning reaches across schemas. */
const PLACE_BOUND = /"\$ref":"#|"\$(id|anchor|dynamicAnchor|recursiveAnchor|dynamicRef|recursiveRef)"|"unevaluated(Properties|Items)"/;

/**
 * The bodies with every subschema that they repeat (the same JSON text twice or more, across bodies or within
 * one, of HOIST_FROM_CHARS or more) replaced by a `$ref` to one copy of it, added on its own (`hoisted`,
 * under `resourcery:body-part/<j>`). Real APIs repeat whole objects in their resources (GitHub's `user`,
 * `repository`…): compiled in place, each copy was compiled again (GitHub: 2.4 s of the module's 2.7 s).
 * A `$ref` to a schema of its own is a call of its validator, which validates, reports (the same
 * instancePath, keyword, params) and fills defaults as the copy did, so a subschema with a `default` of
 * its own (which the schema holding it applies) stays in place, and so does one bound to its place.
 */
export function hoistRepeated(list: ValidatorSchemas["bodies"]): { bodyList: ValidatorSchemas["bodies"]; hoisted: (readonly [key: string, schema: Schema])[] } {
  const seen = new Map<string, number>();
  const count = (node: unknown, top: boolean): void => {
    if (node === null || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach((n) => count(n, false));
    if (!top) {
      const text = JSON.stringify(node);
      if (text.length >= HOIST_FROM_CHARS) seen.set(text, (seen.get(text) ?? 0) + 1);
    }
    eachSubschema(node as Record<string, unknown>, (sub) => count(sub, false));
  };
  for (const [, schema] of list) count(schema, true);
  const keys = new Map<string, string>();
  const hoisted: (readonly [string, Schema])[] = [];
  const rewrite = (node: unknown, top: boolean): unknown => {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return node;
    if (!top) {
      const text = JSON.stringify(node);
      if ((seen.get(text) ?? 0) >= 2 && !Object.hasOwn(node, "default") && !PLACE_BOUND.test(text)) {
        let key = keys.get(text);
        if (key === undefined) {
          key = `resourcery:body-part/${keys.size}`;
          keys.set(text, key);
          hoisted.push([key, rewrite(node, true) as Schema]);
        }
        return { $ref: key };
      }
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      let value = v;
      if (SCHEMA_MAPS.has(k) && v !== null && typeof v === "object" && !Array.isArray(v)) {
        const map: Record<string, unknown> = {};
        for (const [name, sub] of Object.entries(v)) setOwn(map, name, rewrite(sub, false));
        value = map;
      } else if (SCHEMA_LISTS.has(k) && Array.isArray(v)) value = v.map((sub) => rewrite(sub, false));
      else if (ONE_SCHEMA.has(k)) value = rewrite(v, false);
      setOwn(out, k, value);
    }
    return out;
  };
  const bodyList = list.map(([name, schema]) => [name, rewrite(schema, true) as Schema] as const);
  return { bodyList, hoisted };
}

/** Calls `visit` with each subschema directly inside `node` (in the positions hoistRepeated rewrites). */
function eachSubschema(node: Record<string, unknown>, visit: (sub: unknown) => void): void {
  for (const [k, v] of Object.entries(node)) {
    if (SCHEMA_MAPS.has(k) && v !== null && typeof v === "object" && !Array.isArray(v)) Object.values(v).forEach(visit);
    else if (SCHEMA_LISTS.has(k) && Array.isArray(v)) v.forEach(visit);
    else if (ONE_SCHEMA.has(k)) visit(v);
  }
}

/** A shared schema's reference in a body or query (`resourcery:shared#/$defs/<name>`), and in another shared schema. */
const SHARED_DOC_REF = `${SHARED_SCHEMAS_ID}${SHARED_REF_PREFIX}`;
/** Shared schema names used as they are in a key (nothing a URI would encode or resolve). */
const PLAIN_NAME = /^[A-Za-z0-9_.-]+$/;
/** Keywords that file a schema under a name of its own, which a copy moved out of the shared document would file elsewhere. */
const NAMING = /"\$(id|anchor|dynamicAnchor|recursiveAnchor|dynamicRef|recursiveRef)"/;

/**
 * The schemas with each shared schema on its own (`apart`, added under `resourcery:shared/<name>`) and every
 * reference to one rewritten to that key; undefined when there are none, or when one cannot be moved as it
 * is (a name that is not plain, a keyword that names schemas, a reference into the document elsewhere
 * than a shared schema). Why: ajv files what a `$ref` into a document's `$defs` compiles to under the
 * schema being compiled, so every body referring to a shared schema compiled it again (Stripe: the same
 * 107 KB validator seven times); a `$ref` to a schema of its own is compiled once for all. The validators
 * accept and refuse alike (only their errors' schemaPath, which the service never reads, is relative to
 * the shared schema); the fingerprint stays that of `schemas`, which these stand for.
 */
export function sharedApart(schemas: ValidatorSchemas): (ValidatorSchemas & { readonly apart: readonly (readonly [key: string, schema: Schema])[] }) | undefined {
  const doc = schemas.shared;
  if (doc === undefined || typeof doc !== "object") return undefined;
  const defs = doc.$defs as Record<string, Schema> | undefined;
  if (defs === undefined || Object.keys(doc).some((k) => k !== "$id" && k !== "$defs") || !Object.keys(defs).every((n) => PLAIN_NAME.test(n))) return undefined;
  if (NAMING.test(JSON.stringify(defs))) return undefined;
  let movable = true;
  const keyOf = (rest: string): string => {
    const slash = rest.indexOf("/");
    const name = slash < 0 ? rest : rest.slice(0, slash);
    if (!Object.hasOwn(defs, name)) movable = false;
    return slash < 0 ? `${SHARED_SCHEMAS_ID}/${name}` : `${SHARED_SCHEMAS_ID}/${name}#${rest.slice(slash)}`;
  };
  const inShared = (ref: string) => (ref.startsWith(SHARED_REF_PREFIX) ? keyOf(ref.slice(SHARED_REF_PREFIX.length)) : ref.startsWith("#") || ref.startsWith(SHARED_SCHEMAS_ID) ? ((movable = false), ref) : ref);
  const outside = (ref: string) => (ref.startsWith(SHARED_DOC_REF) ? keyOf(ref.slice(SHARED_DOC_REF.length)) : ref.startsWith(SHARED_SCHEMAS_ID) ? ((movable = false), ref) : ref);
  const apart = Object.entries(defs).map(([name, schema]) => [`${SHARED_SCHEMAS_ID}/${name}`, withRefs(schema, inShared) as Schema] as const);
  const bodies = schemas.bodies.map(([name, schema]) => [name, withRefs(schema, outside) as Schema] as const);
  const queries = schemas.queries.map(([name, schema]) => [name, withRefs(schema, outside) as Schema] as const);
  return movable ? { shared: undefined, bodies, queries, apart } : undefined;
}


/**
 * Makes `ajv` write each validator's code without turning it into a function: ajv evaluates the code of
 * every validator it compiles (`new Function`, a third of the compile of Stripe's schemas), and standalone
 * code is printed from the code it keeps (`validate.source`), so the function it makes here is an empty
 * one that carries that code and is never called. Its `code.process` hook, which rewrites the code ajv is
 * about to evaluate, gives the empty function's code.
 */
function sourceOnly(ajv: Ajv): void {
  (ajv.opts.code as { process?: (code: string) => string }).process = () => NOT_RUN;
}

/** The code of each function sourceOnly's ajv makes: one that says it is not to be called. */
const NOT_RUN = `return function notRun() { throw new Error("a validator compiled for its code only"); }`;

/** ajv's standalone code of the validators in `compiled`, which assigns each to `exports.v<j>`. */
function standaloneOf({ ajv, validators }: Compiled): string {
  if (validators.distinct.length === 0) return "";
  const standaloneCode = require("ajv/dist/standalone/index.js") as (a: Ajv, refs: Record<string, string>) => string;
  const refs: Record<string, string> = {};
  validators.distinct.forEach(({ key }, j) => (refs[`v${j}`] = key));
  // The directive ajv starts a CommonJS module with: the ES module is strict already.
  return standaloneCode(ajv, refs).replace(/^"use strict";\n?/, "");
}

/** An object from entries (a name "__proto__" stays a property), each name's value `<scope>.v<j>`, in the spec's order. */
function byName(scope: string, { validators }: Compiled): string {
  const exported = new Map(validators.distinct.flatMap(({ names }, j) => names.map((name) => [name, j] as const)));
  if (exported.size === 0) return "{}";
  const entries = [...validators.byName.keys()].map((name) => [name, exported.get(name)!] as const);
  return `Object.fromEntries([\n${entries.map(([name, j]) => `      [${str(name)}, ${scope}.v${j}],\n`).join("")}    ])`;
}

function moduleOf(fingerprint: string, bodies: Compiled, queries: Compiled): string {
  return (
    tsHeader("the request validators, compiled by ajv at generate time (its standalone code)") +
    `import { createRequire } from "node:module";\n\n` +
    `// ajv's standalone code requires its runtime helpers and ajv-formats' formats, CommonJS modules of the package's dependencies.\n` +
    `const require = createRequire(import.meta.url);\n\n` +
    `/** The fingerprint of the schemas these validators were compiled from (the runtime's validatorsFingerprint). */\n` +
    `export const fingerprint = ${str(fingerprint)};\n\n` +
    `/** The validators of every body by collection and of every action's query by action; \`linearRegExp\` is the runtime's pattern engine. */\n` +
    `export function createValidators(linearRegExp) {\n` +
    `  const bodies = (() => {\n    const exports = {};\n${standaloneOf(bodies)}\n    return exports;\n  })();\n` +
    `  const queries = (() => {\n    const exports = {};\n${standaloneOf(queries)}\n    return exports;\n  })();\n` +
    `  return {\n    bodies: ${byName("bodies", bodies)},\n    queries: ${byName("queries", queries)},\n  };\n}\n`
  );
}

/** A module without validators: the runtime then compiles them at start-up (and reports the failure). */
function uncompiledModule(reason: string): string {
  return (
    tsHeader("the request validators, compiled by ajv at generate time (its standalone code)") +
    `// None: ${lineComment(reason)}\n` +
    `// The service compiles its validators at start-up instead, and says there which schema fails and why.\n\n` +
    `export const fingerprint = "";\n\n` +
    `export function createValidators() {\n  return { bodies: {}, queries: {} };\n}\n`
  );
}
