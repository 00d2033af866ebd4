/**
 * `check` implies the service starts: every schema the generated service hands to ajv is compiled here
 * with the service's own settings (src/model/ajv-settings.ts, the very text of its runtime's), in ajv
 * instances of the same kind and in the same order (bodies in one, action queries with coercion in
 * another), and each failure becomes a diagnostic at the keyword that causes it, with a fix. What the
 * service compiles comes from a function of the model (`compileSetOf` today), so this module compiles
 * whatever shape the model gives its schemas: shared schemas added by id, bodies that $ref them.
 */
import { keyOf } from "../emit/keys.js";
import { memo } from "../emit/memo.js";
import type { Ajv, ErrorObject } from "ajv";
import { childPointer, tokensOf, type Diagnostic, type Target } from "../diagnostics/diagnostic.js";
import { report } from "../diagnostics/report.js";
import { newAjv } from "../model/ajv-settings.js";
import { SERVER_OWNED, SHARED_SCHEMAS_ID } from "../model/conventions.js";
import { patternProblem } from "../model/patterns.js";
import { walkSchemas } from "../model/schema-walk.js";
import { withSharedRefs } from "../model/shared.js";
import { withoutAnnotations } from "../model/validator-schemas.js";
import type { JsonSchema, Model } from "../model/types.js";
import { defineRule, type Rule } from "./rule.js";
import { nullableFix } from "./rules/unsupported-keyword.js";
import { sourceLocator } from "./source-locator.js";

/** One schema the service compiles (or adds), and where each part of it is written. */
export interface CompileUnit {
  /** What it is, in words, as the message names it: "the body of teams", "the query of the action lookup". */
  readonly what: string;
  readonly schema: JsonSchema;
  /** Where the part of `schema` at `pointer` (a JSON pointer inside it) is written. */
  readonly locate: (pointer: string) => Target;
}

/** A schema the others $ref, added to ajv (ajv.addSchema) under `id` before anything is compiled. */
export interface SharedUnit extends CompileUnit {
  readonly id: string;
}

/** Everything the service gives ajv, in the order it does. */
export interface CompileSet {
  /** Added to every ajv instance first; each is also compiled on its own, so a failure is reported where it is written. */
  readonly shared: readonly SharedUnit[];
  /** Request bodies: compiled strictly, in one ajv instance, in this order. */
  readonly bodies: readonly CompileUnit[];
  /** Action query strings: compiled with coercion, in another. */
  readonly queries: readonly CompileUnit[];
  /** Action responses: compiled strictly, in a third. */
  readonly responses: readonly CompileUnit[];
}

/** Most failures reported for one schema (each found by taking the one before out and compiling again). */
const MAX_FAILURES_PER_UNIT = 20;
/** Most trial compiles spent looking for the keyword of one failure; past it, the failure is reported at the schema. */
const MAX_TRIALS_PER_FAILURE = 200;
/** Most trial compiles of one check: definitions with very many failures get the rest reported at their schema. */
const MAX_TRIALS_PER_CHECK = 3000;

/** What looking for culprits needs: ajv instances like the unit's, the shared schemas that failed, a budget. */
interface Search {
  /** A fresh ajv instance, for a schema with ids or anchors (each compile of it files them). */
  readonly scratch: () => Ajv;
  /** An ajv instance for `schema`: one kept for every schema without ids or anchors, which leave nothing behind. */
  readonly ajvFor: (schema: JsonSchema) => Ajv;
  readonly failedShared: ReadonlySet<string>;
  readonly budget: { left: number };
}

/** One failure, pinned to a keyword of a schema object inside the unit. */
interface Culprit {
  /** Pointer (inside the unit's schema) of the schema object that holds the keyword; "" for the root. */
  readonly at: string;
  /** The keyword; undefined when the failure could not be pinned to one. */
  readonly keyword: string | undefined;
  readonly problem: string;
  readonly fix: string;
}

/** Compiles everything in `set` as the service would, and reports each failure where it is written. */
export function compileCheck(set: CompileSet): Diagnostic[] {
  return compileCheckKeeping(set).diagnostics;
}

/** The ajv instances compileCheckKeeping compiled the bodies and the queries in, the shared schemas added to both. */
export interface KeptAjvs {
  readonly bodies?: Ajv;
  readonly queries?: Ajv;
}

/**
 * compileCheck, which also hands back the instances it compiled the bodies and the queries in: with
 * `standalone`, they keep each validator's code, so that the validators module is printed from them
 * (emit/validators.ts) rather than compiled again, the shared schemas above all.
 */
export function compileCheckKeeping(set: CompileSet, standalone = false): { diagnostics: Diagnostic[]; kept: KeptAjvs } {
  const kept: { bodies?: Ajv; queries?: Ajv } = {};
  const out: Diagnostic[] = [];
  const failedShared = new Set<string>();
  const budget = { left: MAX_TRIALS_PER_CHECK };
  const searches = new Map<boolean, Search>();
  const search = (coerce: boolean): Search => {
    let found = searches.get(coerce);
    if (found === undefined) {
      let kept: Ajv | undefined;
      const scratch = () => withShared(coerce);
      found = { scratch, ajvFor: (schema) => (selfContained(schema) ? (kept ??= scratch()) : scratch()), failedShared, budget };
      searches.set(coerce, found);
    }
    return found;
  };
  const withShared = (coerce: boolean): Ajv => {
    const ajv = lintAjv(coerce, standalone);
    for (const s of set.shared) {
      try {
        ajv.addSchema(s.schema as object, s.id);
      } catch {
        // Reported below, where the shared schema is compiled on its own.
      }
    }
    return ajv;
  };
  // Shared schemas first, each on its own: a failure there is reported once, where it is written.
  let strict: Ajv | undefined;
  if (set.shared.length > 0) {
    const ajv = (strict = withShared(false));
    for (const s of set.shared) {
      // The added schema is compiled where it is (once: the others and the bodies that refer to it use that
      // compile). One that fails (or was not added) is compiled as a copy (its id is taken by the added one):
      // validated against the meta-schema first, as the trials that look for the culprit compile it, so
      // that their messages compare.
      if (failure(() => ajv.getSchema(s.id) ?? ajv.compile({ $ref: s.id })) === undefined) continue;
      const error = failure(() => ajv.compile(structuredClone(s.schema) as object));
      if (error === undefined) continue;
      failedShared.add(s.id);
      out.push(...report1(s, "", explain(s.schema, error, search(false))));
    }
  }
  for (const [units, coerce] of [[set.bodies, false], [set.queries, true], [set.responses, false]] as const) {
    if (units.length === 0) continue;
    // Bodies are compiled beside the shared schemas compiled above (an instance of the same settings).
    const ajv = units === set.bodies && strict ? strict : withShared(coerce);
    if (units === set.bodies) kept.bodies = ajv;
    if (units === set.queries) kept.queries = ajv;
    // One compile per distinct schema text (real APIs repeat the same property schemas across resources),
    // and the parts that compile alone as they do in place many at a time (one compile each costs ajv more
    // than the schema itself).
    const seen = new Map<string, Culprit[]>();
    const pending: { key: string; schema: JsonSchema }[] = [];
    const uses: { unit: CompileUnit; prefix: string; key: string }[] = [];
    const compileNow = (key: string, schema: JsonSchema) => {
      const error = failure(() => ajv.compile(schema as object));
      seen.set(key, error === undefined ? [] : explain(schema, error, search(coerce)));
    };
    for (const unit of units) {
      const parts = partsOf(unit.schema);
      for (const part of parts ?? [{ schema: unit.schema, prefix: "" }]) {
        const key = JSON.stringify(part.schema) ?? "";
        uses.push({ unit, prefix: part.prefix, key });
        if (seen.has(key)) continue;
        seen.set(key, []);
        // A schema that names its parts by pointer or id compiles alone, in the service's order.
        if (parts === undefined) compileNow(key, part.schema);
        else pending.push({ key, schema: part.schema });
      }
    }
    for (let i = 0; i < pending.length; i += BATCH) {
      const batch = pending.slice(i, i + BATCH);
      // allOf, not anyOf: ajv generates no code for an anyOf with a branch that is always valid.
      if (failure(() => ajv.compile({ allOf: batch.map((b) => b.schema) })) === undefined) continue;
      for (const b of batch) compileNow(b.key, b.schema);
    }
    for (const use of uses) out.push(...report1(use.unit, use.prefix, seen.get(use.key)!));
  }
  // A schema written once and reached from several units (a $ref inlined in each) is reported once.
  const reported = new Set<string>();
  const diagnostics = out.filter((d) => {
    const key = `${d.file}#${d.pointer}#${d.hint}`;
    if (reported.has(key)) return false;
    reported.add(key);
    return true;
  });
  return { diagnostics, kept };
}

/** The ajv instance that validates schemas against ajv's meta-schema for every lintAjv, made on first use. */
let metaAjv: Ajv | undefined;

/**
 * An ajv instance with the service's settings, as `check` compiles with them, whose schemas are validated
 * against the meta-schema by one instance for all: each instance compiles the meta-schema on first use
 * otherwise (25–40 ms each, several per check, more while culprits are looked for). ajv validates with the
 * same meta-schema validator whatever its options (it ignores coercion and defaults there), so the
 * messages are the same. A schema naming a meta-schema of its own (`$schema`) is validated by its
 * instance, which may know it.
 */
function lintAjv(coerce: boolean, standalone = false): Ajv {
  const ajv = newAjv(coerce, { optimize: false, quiet: true, standalone });
  const own = ajv.validateSchema.bind(ajv);
  const meta = (metaAjv ??= newAjv(false, { optimize: false, quiet: true }));
  ajv.validateSchema = (schema, throwOrLogError) => {
    if (schema !== null && typeof schema === "object" && (schema as { $schema?: unknown }).$schema !== undefined) return own(schema, throwOrLogError);
    try {
      return meta.validateSchema(schema, throwOrLogError);
    } finally {
      ajv.errors = meta.errors;
    }
  };
  return ajv;
}

/** The diagnostics of `culprits` found in the part of `unit` at `prefix`. */
function report1(unit: CompileUnit, prefix: string, culprits: readonly Culprit[]): Diagnostic[] {
  return culprits.map((c) => {
    const inner = c.keyword === undefined ? c.at : childPointer(c.at, c.keyword);
    const at = unit.locate(prefix + inner);
    return report("schema-compile", { ...at, kind: at.kind ?? "key" }, { what: unit.what, problem: c.problem, fix: c.fix });
  });
}

/** Parts compiled together in one schema (an allOf of them); a batch that fails is compiled part by part. */
const BATCH = 200;

/** Keywords that mean something else at the root of a schema than inside one. */
const ROOT_KEYWORDS = ["$schema", "$async", "$id"];

/**
 * The parts of a schema that compile alone (and inside an allOf with others) as they compile in place:
 * the schema with each of its `properties` taken out (`true` in their place), and each of those
 * properties. Undefined when the schema must be compiled whole: a part refers to another by a pointer or
 * an id inside the schema (`#/…`, `$id`, `$anchor`), or a property's schema starts with a keyword that
 * means something else at a root ($schema, $async).
 */
function partsOf(schema: JsonSchema): { readonly schema: JsonSchema; readonly prefix: string }[] | undefined {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema) || !selfContained(schema)) return undefined;
  const own = schema as Record<string, unknown>;
  if (ROOT_KEYWORDS.some((k) => Object.hasOwn(own, k))) return undefined;
  const properties = own.properties;
  if (properties === null || typeof properties !== "object" || Array.isArray(properties)) return [{ schema, prefix: "" }];
  const subs = Object.values(properties);
  if (subs.some((sub) => sub !== null && typeof sub === "object" && ROOT_KEYWORDS.some((k) => Object.hasOwn(sub, k)))) return undefined;
  const shell: Record<string, unknown> = {};
  for (const name of Object.keys(properties)) Object.defineProperty(shell, name, { value: true, enumerable: true, writable: true, configurable: true });
  return [
    { schema: { ...schema, properties: shell }, prefix: "" },
    ...Object.entries(properties).map(([name, sub]) => ({ schema: sub as JsonSchema, prefix: childPointer("", "properties", name) })),
  ];
}

/** True when no part of `schema` names another by a pointer or an id within it. */
function selfContained(schema: JsonSchema): boolean {
  let contained = true;
  walkSchemas(schema, "", (s) => {
    if (!contained) return;
    if (typeof s.$ref === "string" && s.$ref.startsWith("#")) contained = false;
    if (typeof s.$dynamicRef === "string" || Object.hasOwn(s, "$id") || Object.hasOwn(s, "$anchor") || Object.hasOwn(s, "$dynamicAnchor")) contained = false;
  });
  return contained;
}

/** The message of what `compile` throws, or undefined when it compiles. */
function failure(compile: () => unknown): string | undefined {
  try {
    compile();
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * The culprits of a schema that fails with `message`, found one at a time in a working copy (each taken
 * out before looking for the next) compiled in fresh ajv instances from `scratch`. A $ref to a shared
 * schema that fails on its own is no culprit of its own: that schema is reported where it is written.
 */
function explain(schema: JsonSchema, message: string, search: Search): Culprit[] {
  const out: Culprit[] = [];
  let working = structuredClone(schema);
  let current: string | undefined = message;
  for (let n = 0; current !== undefined && n < MAX_FAILURES_PER_UNIT; n++) {
    const culprit = findCulprit(working, current, search);
    const viaFailedRef = culprit.keyword === "$ref" && search.failedShared.has(refTarget(valueAt(working, culprit.at, "$ref")));
    if (!viaFailedRef) out.push(culprit);
    if (culprit.keyword === undefined) break;
    working = without(working, culprit.at, culprit.keyword);
    const next = search.ajvFor(working);
    current = failure(() => next.compile(working as object));
  }
  return out;
}

/** The failing keyword of `schema`, which fails to compile with `message`. */
function findCulprit(schema: JsonSchema, message: string, search: Search): Culprit {
  const { failedShared } = search;
  const sites = keywordSites(schema);
  if (message.startsWith("schema is invalid")) {
    const meta = search.ajvFor(schema);
    meta.validateSchema(schema as object);
    const first = meta.errors?.[0];
    if (first) return metaCulprit(schema, first, sites);
  }
  // A keyword whose string value the message quotes ($ref, $id, $schema) is named by it.
  for (const site of sites) {
    const value = valueAt(schema, site.at, site.keyword);
    if (typeof value === "string" && value !== "" && ["$ref", "$id", "$schema", "id"].includes(site.keyword) && message.includes(`"${value}"`)) {
      return culpritOf(schema, site.at, site.keyword, message);
    }
    if (site.keyword === "$ref" && typeof value === "string" && message.includes(`reference ${value} `)) return culpritOf(schema, site.at, site.keyword, message);
    if (site.keyword === "$ref" && typeof value === "string" && failedShared.has(refTarget(value))) return culpritOf(schema, site.at, site.keyword, message);
  }
  // Otherwise by trial: the keyword whose removal makes the failure go away (or change). Keywords the
  // message names, and those of its kind, are tried first; deeper schemas before the ones that hold them.
  const named = hintedKeywords(message);
  const ordered = [...sites.filter((s) => named.has(s.keyword)), ...sites.filter((s) => !named.has(s.keyword))];
  if (failure(() => search.ajvFor(schema).compile(structuredClone(schema) as object)) === message) {
    let trials = 0;
    for (const site of ordered) {
      if (++trials > MAX_TRIALS_PER_FAILURE || search.budget.left-- <= 0) break;
      const trial = search.ajvFor(schema);
      if (failure(() => trial.compile(without(schema, site.at, site.keyword) as object)) !== message) return culpritOf(schema, site.at, site.keyword, message);
    }
  }
  return { at: "", keyword: undefined, problem: ajvWords(message), fix: "correct the schema: ajv, the service's validator, must be able to compile it (resourcery check --json shows the same)" };
}

/** A keyword of a schema object inside the unit: where the object is, and the keyword's name. */
interface Site {
  readonly at: string;
  readonly keyword: string;
}

/** Keywords that hold other schemas: tried after the keywords of the schemas inside them. */
const CONTAINERS = new Set([
  "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies", "items", "additionalItems",
  "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties",
  "contentSchema", "allOf", "anyOf", "oneOf", "prefixItems",
]);

/** Every keyword of every schema object in `schema`: deeper objects first, and in each its own keywords before the containers. */
function keywordSites(schema: JsonSchema): Site[] {
  const objects: string[] = [];
  walkSchemas(schema, "", (_s, pointer) => objects.push(pointer));
  const out: Site[] = [];
  for (const at of objects.reverse()) {
    const node = nodeAt(schema, at) as Record<string, unknown>;
    const keys = Object.keys(node);
    for (const keyword of [...keys.filter((k) => !CONTAINERS.has(k)), ...keys.filter((k) => CONTAINERS.has(k))]) out.push({ at, keyword });
  }
  return out;
}

/** Keywords to try first for a message: those it quotes, and those its kind of failure comes from. */
function hintedKeywords(message: string): Set<string> {
  const out = new Set<string>();
  for (const m of message.matchAll(/"([$\w-]+)"/g)) out.add(m[1]!);
  if (/regular expression|regexp|pattern/i.test(message)) out.add("pattern").add("patternProperties");
  if (/reference|\$ref/i.test(message)) out.add("$ref");
  if (/schema with key or id|resolves to more than one/i.test(message)) out.add("$id").add("id");
  if (/no schema with key or ref/i.test(message)) out.add("$schema").add("$ref");
  if (/format/i.test(message)) out.add("format");
  if (/async/i.test(message)) out.add("$async");
  return out;
}

/** A culprit for `keyword` of the schema object at `at`, with the problem and fix of its kind. */
function culpritOf(schema: JsonSchema, at: string, keyword: string, message: string): Culprit {
  const node = nodeAt(schema, at) as Record<string, unknown>;
  const value = node[keyword];
  const problem = ajvWords(message);
  switch (keyword) {
    case "nullable":
      return { at, keyword, problem, fix: nullableFix(node) };
    case "pattern": {
      const p = typeof value === "string" ? patternProblem(value) : undefined;
      return { at, keyword, problem: p ? `pattern ${JSON.stringify(value)} ${p.problem}` : problem, fix: p?.fix ?? "correct the regular expression" };
    }
    case "patternProperties": {
      const bad = value !== null && typeof value === "object" ? Object.keys(value).find((k) => patternProblem(k) !== undefined) : undefined;
      if (bad !== undefined) {
        const p = patternProblem(bad)!;
        return { at: childPointer(at, "patternProperties"), keyword: bad, problem: `pattern ${JSON.stringify(bad)} ${p.problem}`, fix: p.fix };
      }
      return { at, keyword, problem, fix: "correct the regular expressions of patternProperties" };
    }
    case "$ref":
      return { at, keyword, problem, fix: `correct the $ref ${JSON.stringify(value)}: it must name a schema of the project (a file, or a pointer into one: "common.json#/$defs/name")` };
    case "$schema":
      return { at, keyword, problem, fix: `remove "$schema" here: the service reads every schema of a definition as JSON Schema, and its validator knows no meta-schema ${JSON.stringify(value)} in the middle of one` };
    case "$id":
    case "id":
      return { at, keyword, problem, fix: `remove "${keyword}", or give each schema an "${keyword}" of its own: the service files every schema under its id, and two may not share one` };
    default:
      return { at, keyword, problem, fix: `correct or remove "${keyword}": ajv, the service's validator, cannot compile it` };
  }
}

/** A culprit of a meta-schema failure: the keyword whose value ajv's meta-schema refuses. */
function metaCulprit(schema: JsonSchema, e: ErrorObject, sites: readonly Site[]): Culprit {
  // The deepest schema object whose pointer leads to the refused value; the token after it is the keyword.
  const objects = new Set(sites.map((s) => s.at));
  const tokens = tokensOf(e.instancePath);
  let depth = tokens.length;
  while (depth > 0 && !objects.has(pointerOf(tokens.slice(0, depth)))) depth--;
  const at = pointerOf(tokens.slice(0, depth));
  const keyword = tokens[depth];
  if (keyword === undefined) return { at, keyword: undefined, problem: `the schema ${e.message ?? "is not valid"}`, fix: "correct the schema: it must be a JSON Schema object" };
  const words = `"${keyword}" ${e.message ?? "is not valid"}`;
  const culprit = culpritOf(schema, at, keyword, words);
  return culprit.keyword === "pattern" || culprit.at !== at ? culprit : { ...culprit, fix: `correct "${keyword}": ${e.message ?? "its value is not valid"} (see https://json-schema.org/draft/2020-12 for the keyword's values)` };
}

/** ajv's message without its noise: "schema is invalid: data/properties/a/type must be …" → "must be …". */
function ajvWords(message: string): string {
  return message.replace(/^schema is invalid: data\S*\s*/, "").replace(/\s+/g, " ").trim();
}

/** The `$ref` target's base (without the fragment), as a shared schema's id is written. */
function refTarget(ref: unknown): string {
  return typeof ref === "string" ? ref.split("#")[0]! || ref : "";
}

function pointerOf(tokens: readonly string[]): string {
  return tokens.length === 0 ? "" : childPointer("", ...tokens);
}

/** The node at a JSON pointer inside `schema`. */
function nodeAt(schema: unknown, pointer: string): unknown {
  let node = schema;
  for (const t of tokensOf(pointer)) node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[t] : undefined;
  return node;
}

function valueAt(schema: unknown, at: string, keyword: string): unknown {
  const node = nodeAt(schema, at);
  return node !== null && typeof node === "object" ? (node as Record<string, unknown>)[keyword] : undefined;
}

/** A copy of `schema` without `keyword` in the object at `at`. */
function without(schema: JsonSchema, at: string, keyword: string): JsonSchema {
  const copy = structuredClone(schema);
  const node = nodeAt(copy, at);
  if (node !== null && typeof node === "object") delete (node as Record<string, unknown>)[keyword];
  return copy;
}

/**
 * What the service compiles, from today's model: each resource's body (the writable properties' schemas
 * as the model gives them; links are the service's own link schema, which always compiles), each action's
 * query and response, with the shared schemas as the service adds them (SHARED_SCHEMAS_ID); all without
 * their annotations, as the service compiles them (validatorSchemas), so that bodies that differ only in
 * descriptions are compiled once.
 */
export function compileSetOf(model: Model): CompileSet {
  const locate = sourceLocator(model);
  const bodies = model.resources.map((r): CompileUnit => {
    const fields = r.fields.filter((f) => f.link === undefined && !(SERVER_OWNED as readonly string[]).includes(f.name) && f.name !== r.owner);
    const properties: Record<string, unknown> = {};
    for (const f of fields) Object.defineProperty(properties, f.name, { value: f.schema, enumerable: true, writable: true, configurable: true });
    const required = r.required.filter((n) => fields.some((f) => f.name === n));
    return {
      what: `the body of ${r.collection}`,
      schema: { type: "object", additionalProperties: false, ...r.bodyKeywords, ...(required.length ? { required } : {}), properties },
      locate: (pointer) => {
        const [first, name, ...rest] = tokensOf(pointer);
        const field = first === "properties" ? fields.find((f) => f.name === name) : undefined;
        if (field) return locate(field.origin, pointerOf(rest));
        // A keyword of the root (additionalProperties, patternProperties …) is where the resource writes it.
        return first !== undefined && first in r.bodyKeywords ? locate(r.origin, pointer) : { file: r.origin.file, pointer: r.origin.pointer, kind: "key" };
      },
    };
  });
  const actionUnit = (a: Model["actions"][number], part: "query" | "response"): CompileUnit => ({
    what: `the ${part} of the action ${a.name}`,
    schema: a[part],
    locate: (pointer) => locate({ file: a.origin.file, pointer: childPointer(a.origin.pointer, part) }, pointer),
  });
  // The shared schemas, each compiled on its own under an id of its own (the service files them in one
  // document under SHARED_SCHEMAS_ID; compiled alone, a failure is found and reported where it is written).
  const idOf = (name: string) => `${SHARED_SCHEMAS_ID}/${name}`;
  const shared: SharedUnit[] = model.schemas.map((s) => ({
    id: idOf(s.name),
    what: `the shared schema ${s.name}`,
    schema: withoutAnnotations(withSharedRefs(s.schema, idOf)) as JsonSchema,
    locate: (pointer) => locate(s.origin, pointer),
  }));
  const absolute = (unit: CompileUnit): CompileUnit => ({ ...unit, schema: withoutAnnotations(withSharedRefs(unit.schema, idOf)) as JsonSchema });
  return {
    shared,
    bodies: bodies.map(absolute),
    queries: model.actions.map((a) => absolute(actionUnit(a, "query"))),
    responses: model.actions.map((a) => absolute(actionUnit(a, "response"))),
  };
}

/**
 * The rule that compiles what `setOf` says the service compiles: today's `compileSetOf`, or one that adds
 * the model's shared schemas by id and compiles bodies that $ref them.
 */
export function schemaCompileRule(setOf: (model: Model) => CompileSet): Rule {
  return defineRule({
    codes: ["schema-compile"],
    description: "every body, query and response schema compiles with the generated service's ajv settings, so a checked service starts",
    check: (model) => rememberedCompileCheck(setOf(model)),
  });
}

/**
 * compileCheck, skipped when every unit of `set` compiled clean in an earlier generation (emit/memo.ts): a
 * unit's key is its kind, its schema and the shared schemas it may $ref. A set that compiles clean records
 * its units; one with findings records none (a later check compiles it all again).
 */
function rememberedCompileCheck(set: CompileSet): Diagnostic[] {
  const remembered = memo();
  const shared = keyOf("compiled shared", set.shared.map((u) => [u.id, u.schema]));
  const units = [
    ...set.shared.map((u) => keyOf("compiled clean", "shared", u.id, u.schema, shared)),
    ...set.bodies.map((u) => keyOf("compiled clean", "body", u.schema, shared)),
    ...set.queries.map((u) => keyOf("compiled clean", "query", u.schema, shared)),
    ...set.responses.map((u) => keyOf("compiled clean", "response", u.schema, shared)),
  ];
  if (units.every((key) => remembered.has(key))) {
    for (const key of units) remembered.keep(key);
    return [];
  }
  const found = compileCheck(set);
  if (found.length === 0) for (const key of units) remembered.set(key, true);
  return found;
}

/** Every schema the service compiles compiles with its validator's settings (the rule `check` runs). */
export const schemaCompile = schemaCompileRule(compileSetOf);
