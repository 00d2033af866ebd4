/**
 * Classifies property schemas and inlines non-resource $refs within a budget, reporting refs that
 * do not resolve, lead outside the project, or only lead back to themselves.
 */
import { childPointer, type Diagnostic } from "../diagnostics/diagnostic.js";
import { report } from "../diagnostics/report.js";
import { DEFAULT_LIMITS, type Limits } from "../load/limits.js";
import { readProblemDiagnostic } from "../load/read-file.js";
import type { RefFailure, RefResolver } from "../load/resolve-refs.js";
import { pascalCase, safeTypeName } from "./names.js";
import { isDataKeyword, SCHEMA_MAPS } from "./schema-walk.js";
import type { FieldKind, JsonSchema, SharedSchema } from "./types.js";

/** Keywords that may stand beside a $ref without making it more than a link. */
const ANNOTATIONS = new Set(["$ref", "title", "description", "$comment", "readOnly", "writeOnly", "deprecated", "examples", "default", "x-inverse", "x-on-delete"]);

/** Finds the resource (by collection) whose root file a resolved $ref lands on. */
export type ResourceLookup = (file: string, pointer: string) => string | undefined;

/** Keywords that say nothing about a value: a schema of these and a $ref is only the $ref. */
const NON_VALIDATING = new Set([...ANNOTATIONS, "$defs", "definitions", "$id", "$anchor", "$schema"]);

/** How much the schemas of one resource or action may still produce, and where to report it. */
export interface Budget {
  /** Schema nodes (objects and arrays) left. */
  left: number;
  /** The resource or action, in words: `resource "books"`. */
  readonly owner: string;
  /** Set once its diagnostic is reported: one per resource or action. */
  spent: boolean;
}

/** Thrown inside a rewrite when a budget runs out; caught where the rewrite started. */
class OverBudget {
  constructor(readonly problem: string) {}
}

/** How the model writes a reference to a shared schema: `{ "$ref": "#/$defs/<name>" }` (see SharedSchema). */
export const SHARED_REF_PREFIX = "#/$defs/";

/** A schema reached by a $ref, on its way to being a SharedSchema: found, rewritten once, named at the end. */
interface Entry {
  readonly file: string;
  readonly pointer: string;
  /** The schema as written there. */
  readonly value: unknown;
  /** The name it would take if nothing else took it: from the pointer's last meaningful token, or the file. */
  readonly wanted: string;
  schema: JsonSchema | undefined;
  name: string;
  /** The `{ "$ref" }` objects written for it so far, whose $ref is set once the name is known. */
  readonly refs: Record<string, unknown>[];
}

/**
 * Keywords left out of a rewritten schema: identifiers and bases its $refs no longer need (every $ref
 * is rewritten to the shared form, which a nested `$id` would re-base), and `$defs`, whose entries
 * are shared schemas of their own once something refers to them.
 */
const DROPPED = new Set(["$id", "$schema", "$anchor", "$dynamicAnchor", "$defs", "definitions"]);

/** Pointer tokens that say where a schema sits, not what it is: a shared schema is named after the others. */
const STRUCTURAL = new Set([
  "$defs", "definitions", "properties", "items", "prefixItems", "additionalProperties", "patternProperties", "allOf", "anyOf", "oneOf",
  "not", "if", "then", "else", "contains", "propertyNames", "dependentSchemas", "components", "schemas",
]);

/** Names no shared schema takes: what the generated code and documents declare themselves, and TypeScript's own globals. */
const RESERVED_NAMES = [
  "Types", "Meta", "Link", "CollectionLink", "LinkInput", "Error", "Page", "Expanded", "Registry", "Client", "ApiError",
  "Array", "Object", "String", "Number", "Boolean", "Symbol", "BigInt", "Date", "Function", "Promise", "Record", "Partial", "Required",
  "Readonly", "Pick", "Omit", "Exclude", "Extract", "NonNullable", "ReturnType", "Map", "Set", "WeakMap", "WeakSet", "RegExp", "JSON",
  "Math", "Uint8Array", "ArrayBuffer", "Iterable", "Awaited", "Buffer", "URL", "Response", "Request", "Headers", "Blob", "File",
];

export class SchemaReader {
  readonly diagnostics: Diagnostic[] = [];
  /** Schema nodes the schemas of the whole project may still produce. */
  private totalLeft: number;
  /** Objects and arrays checkRefs has walked (a value reached by several $refs is walked once). */
  private readonly walked = new WeakSet<object>();
  /** Schemas that are only a $ref whose chain of $refs checkRefs has followed. */
  private readonly followed = new WeakSet<object>();
  /** Every schema a $ref reaches, by `<file>#<pointer>`: each is rewritten once, however many $refs reach it. */
  private readonly entries = new Map<string, Entry>();
  /** Entries found but not rewritten yet. */
  private readonly pending: Entry[] = [];
  /** The `$ref` objects read as links (linkOf). */
  private readonly linkNodes = new WeakSet<object>();
  /** Every `$ref` to a resource's root that checkRefs met, and where. */
  private readonly resourceRefs: { node: object; file: string; pointer: string; target: string }[] = [];
  /** The entry each `{ "$ref" }` object written so far stands for. */
  private readonly refOf = new WeakMap<object, Entry>();
  /** `discriminator.mapping` entries that name a shared schema: written with its name once names are given. */
  private readonly mappings: { readonly map: Record<string, unknown>; readonly tag: string; readonly entry: Entry }[] = [];

  constructor(
    private readonly resolver: RefResolver,
    private readonly resourceAt: ResourceLookup,
    private readonly limits: Pick<Limits, "schemaNodes" | "totalSchemaNodes" | "nesting"> = DEFAULT_LIMITS,
  ) {
    this.totalLeft = limits.totalSchemaNodes;
  }

  /** A fresh budget for the schemas of one resource or action (`owner` in words). */
  budget(owner: string): Budget {
    return { left: this.limits.schemaNodes, owner, spent: false };
  }

  /** The collection a schema links to when it is `{ "$ref": <resource> }` (annotations allowed). */
  linkTarget(schema: unknown, file: string): string | undefined {
    if (!isObject(schema) || typeof schema.$ref !== "string") return undefined;
    if (!Object.keys(schema).every(isAnnotation)) return undefined;
    return this.resourceOf(schema.$ref, file);
  }

  /**
   * The link a property's schema declares, in any of the forms CONTRACT §2 reads as one: `{ "$ref": <resource> }`;
   * nullable as `anyOf`/`oneOf` [$ref, { "type": "null" }] or a `$ref` beside `"type": ["object", "null"]`; and
   * the expandable form, `anyOf` [{ "type": "string" } (the id), $ref] (null allowed too). Annotations and
   * `x-` keywords may stand beside it. The `$ref` objects read as links are remembered (embeddedResources).
   */
  linkOf(schema: unknown, file: string): { target: string; nullable: boolean } | undefined {
    if (!isObject(schema)) return undefined;
    const direct = this.linkTarget(schema, file);
    if (direct !== undefined) return this.linked(schema, direct, false);
    if (typeof schema.$ref === "string" && Array.isArray(schema.type)) {
      const types = schema.type as unknown[];
      const fits = types.includes("null") && types.every((t) => t === "null" || t === "object");
      const target = fits && Object.keys(schema).every((k) => k === "type" || isAnnotation(k)) ? this.resourceOf(schema.$ref, file) : undefined;
      if (target !== undefined) return this.linked(schema, target, true);
    }
    for (const key of ["anyOf", "oneOf"] as const) {
      const branches = schema[key];
      if (!Array.isArray(branches) || !Object.keys(schema).every((k) => k === key || isAnnotation(k))) continue;
      const refs = branches.flatMap((b) => {
        const target = this.linkTarget(b, file);
        return target === undefined ? [] : [{ node: b as Record<string, unknown>, target }];
      });
      const nulls = branches.filter(isNullSchema).length;
      const ids = branches.filter(isIdSchema).length;
      if (refs.length === 1 && refs.length + nulls + ids === branches.length) return this.linked(refs[0]!.node, refs[0]!.target, nulls > 0);
    }
    return undefined;
  }

  /** Where `ref` written in `file` lands, as written there (undefined when it does not resolve: checkRefs says why). */
  resolveRaw(ref: string, file: string): { file: string; pointer: string; value: unknown } | undefined {
    return this.resolver.resolve(file, ref);
  }

  /** Every `$ref` to a resource met so far that no property reads as a link: an embedded copy of that resource's schema. */
  embeddedResources(): { file: string; pointer: string; target: string }[] {
    return this.resourceRefs.filter((r) => !this.linkNodes.has(r.node)).map(({ file, pointer, target }) => ({ file, pointer, target }));
  }

  private linked(node: Record<string, unknown>, target: string, nullable: boolean): { target: string; nullable: boolean } {
    this.linkNodes.add(node);
    return { target, nullable };
  }

  /** The collection whose root `ref` (written in `file`) lands on, if any. */
  private resourceOf(ref: string, file: string): string | undefined {
    const hit = this.resolver.resolve(file, ref);
    return hit ? this.resourceAt(hit.file, hit.pointer) : undefined;
  }

  /**
   * The schema at `pointer` of `file`, with every $ref rewritten to the shared form
   * (`{ "$ref": "#/$defs/<name>" }`, see sharedSchemas): the schema a $ref reaches is rewritten once and
   * stays one shared schema, so the work and the output grow with the definitions, not with how often
   * they refer to each other. The nodes written count against `budget` and the project's total.
   */
  share(schema: unknown, file: string, pointer: string, budget: Budget): JsonSchema {
    if (budget.spent) return {};
    let out: JsonSchema;
    try {
      out = this.rewrite(schema, file, budget, 0);
    } catch (e) {
      if (!(e instanceof OverBudget)) throw e;
      budget.spent = true;
      this.diagnostics.push(report("schema-too-large", { file, pointer, kind: "key" }, { what: budget.owner, problem: e.problem }));
      return {};
    }
    this.drain();
    return out;
  }

  /** Rewrites the schemas $refs have reached since the last call (each may reach more). */
  private drain(): void {
    for (let entry = this.pending.pop(); entry; entry = this.pending.pop()) {
      const budget = this.budget(`the schema at ${baseName(entry.file)}#${entry.pointer}`);
      try {
        entry.schema = this.rewrite(stripResourceKeywords(entry.value), entry.file, budget, 0);
      } catch (e) {
        if (!(e instanceof OverBudget)) throw e;
        entry.schema = {};
        this.diagnostics.push(report("schema-too-large", { file: entry.file, pointer: entry.pointer, kind: "key" }, { what: budget.owner, problem: e.problem }));
      }
    }
  }

  /**
   * The schema a shared reference stands for, following references to references; the schema itself
   * when it is no reference (a reference with keywords beside it is followed too: those keywords only
   * narrow it). Undefined for a loop of references.
   */
  deref(schema: JsonSchema): JsonSchema | undefined {
    let at: JsonSchema = schema;
    for (let hops = 0; isObject(at); hops++) {
      const entry = this.refOf.get(at);
      if (!entry) return at;
      if (hops > this.entries.size) return undefined;
      at = entry.schema ?? {};
    }
    return at;
  }

  /**
   * Every schema a $ref reached, named: names are unique, PascalCase, and none of `taken` (the
   * generated types') or RESERVED_NAMES; each `{ "$ref" }` written for one now says its name.
   * Sorted by name. Call once, after the last share.
   */
  sharedSchemas(taken: ReadonlySet<string>): SharedSchema[] {
    const used = new Set<string>([...taken, ...RESERVED_NAMES]);
    // Named in an order that depends on what is referenced, not on the order it was reached in.
    const entries = [...this.entries.values()].sort((a, b) => compare(a.wanted, b.wanted) || compare(a.file, b.file) || compare(a.pointer, b.pointer));
    for (const entry of entries) {
      let name = entry.wanted;
      for (let n = 2; used.has(name); n++) name = `${entry.wanted}${n}`;
      used.add(name);
      entry.name = name;
      for (const ref of entry.refs) setOwn(ref, "$ref", SHARED_REF_PREFIX + name);
    }
    for (const { map, tag, entry } of this.mappings) setOwn(map, tag, SHARED_REF_PREFIX + entry.name);
    // A loop of schemas that are only $refs stands for nothing (circular-ref reports it): `{}`, as the service
    // could not compile it otherwise.
    const loops = entries.filter((e) => e.schema !== undefined && this.deref(e.schema) === undefined);
    for (const e of loops) e.schema = {};
    return entries
      .map((e) => ({ name: e.name, schema: e.schema ?? {}, origin: { file: e.file, pointer: e.pointer } }))
      .sort((a, b) => compare(a.name, b.name));
  }

  private rewrite(schema: unknown, file: string, budget: Budget, depth: number): JsonSchema {
    if (schema === null || typeof schema !== "object") return schema as JsonSchema;
    this.spend(budget, depth);
    if (Array.isArray(schema)) return schema.map((s) => this.rewrite(s, file, budget, depth + 1)) as unknown as JsonSchema;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(schema)) {
      if (k === "$ref" && typeof v === "string") continue;
      if (DROPPED.has(k)) continue;
      if (k === "discriminator" && isObject(v)) {
        setOwn(out, k, this.discriminator(v, file));
      } else if (SCHEMA_MAPS.has(k) && isObject(v)) {
        // Keys of a map are names (a property may be called "default" or "x-rate"): every value is a schema.
        this.spend(budget, depth + 1);
        const map: Record<string, unknown> = {};
        for (const [name, sub] of Object.entries(v)) setOwn(map, name, this.rewrite(sub, file, budget, depth + 2));
        setOwn(out, k, map);
      } else if (k === "enum" && Array.isArray(v)) {
        // A value listed twice means what it means once (JSON Schema: items SHOULD be unique), and the service's
        // validator refuses to compile a list with repeats: each is kept once.
        const seen = new Set<string>();
        setOwn(out, k, v.filter((x) => !seen.has(JSON.stringify(x)) && seen.add(JSON.stringify(x))));
      } else {
        setOwn(out, k, isDataKeyword(k) || k === "example" ? v : this.rewrite(v, file, budget, depth + 1));
      }
    }
    const ref = (schema as { $ref?: unknown }).$ref;
    if (typeof ref !== "string") return out;
    const hit = this.resolver.resolve(file, ref);
    // An unresolved $ref is reported by checkRefs; what stays beside it is the schema.
    if (!hit) return out;
    const entry = this.entryOf(hit.file, hit.pointer, hit.value);
    // The $ref first, where it was written, so that the rest reads as narrowing it.
    const shared: Record<string, unknown> = { $ref: "" };
    for (const [k, v] of Object.entries(out)) setOwn(shared, k, v);
    entry.refs.push(shared);
    this.refOf.set(shared, entry);
    return shared;
  }

  /**
   * OpenAPI's `discriminator` as written, but for its `mapping`: a value that is a reference to a shared schema
   * names it as the schema's own $refs do (`#/$defs/<Name>`, once names are given); one that names a resource or
   * nothing is left out (a reference no output could resolve). The runtime chooses a union's branch by it, and
   * openapi.json refers to the component.
   */
  private discriminator(value: Record<string, unknown>, file: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (k !== "mapping") setOwn(out, k, v);
    if (!isObject(value.mapping)) return out;
    const map: Record<string, unknown> = {};
    for (const [tag, target] of Object.entries(value.mapping)) {
      if (typeof target !== "string") continue;
      const hit = this.resolver.resolve(file, target);
      if (!hit || (hit.pointer === "" && this.resourceAt(hit.file, hit.pointer) !== undefined)) continue;
      setOwn(map, tag, "");
      this.mappings.push({ map, tag, entry: this.entryOf(hit.file, hit.pointer, hit.value) });
    }
    setOwn(out, "mapping", map);
    return out;
  }

  /** The entry of the schema at `pointer` of `file`, made (and queued to be rewritten) on first use. */
  private entryOf(file: string, pointer: string, value: unknown): Entry {
    const key = `${file}#${pointer}`;
    let entry = this.entries.get(key);
    if (!entry) {
      const collection = pointer === "" ? this.resourceAt(file, pointer) : undefined;
      entry = { file, pointer, value, wanted: wantedName(file, pointer, collection), schema: undefined, name: "", refs: [] };
      this.entries.set(key, entry);
      this.pending.push(entry);
    }
    return entry;
  }

  /** Counts one node against the budgets, and its depth against twice the nesting limit of a file (a guard: a file cannot nest deeper). */
  private spend(budget: Budget, depth: number): void {
    const { schemaNodes, totalSchemaNodes, nesting } = this.limits;
    if (--budget.left < 0) throw new OverBudget(`has more than ${count(schemaNodes)} schema nodes (the limit for one resource, action or shared schema)`);
    if (--this.totalLeft < 0) throw new OverBudget(`takes the project past ${count(totalSchemaNodes)} schema nodes (the limit for all schemas together)`);
    if (depth > 2 * nesting) throw new OverBudget(`nests more than ${2 * nesting} levels deep`);
  }

  /**
   * Reports every $ref in `value` (at `pointer` of `file`), and in the schemas they lead to, that
   * does not resolve, leads outside the project or to a file that cannot be read, or only leads
   * back to itself. Each schema is walked once, however many $refs reach it.
   */
  checkRefs(value: unknown, file: string, pointer: string): void {
    // A queue, not recursion: a chain of $refs across files may be as long as the definitions are.
    const queue = [{ value, file, pointer }];
    for (let next = queue.pop(); next; next = queue.pop()) this.walkRefs(next.value, next.file, next.pointer, queue);
  }

  private walkRefs(value: unknown, file: string, pointer: string, queue: { value: unknown; file: string; pointer: string }[]): void {
    if (value === null || typeof value !== "object" || this.walked.has(value)) return;
    this.walked.add(value);
    if (Array.isArray(value)) {
      value.forEach((v, i) => this.walkRefs(v, file, childPointer(pointer, i), queue));
      return;
    }
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") {
        const at = { file, pointer: childPointer(pointer, "$ref") };
        const hit = this.resolver.lookup(file, v);
        if (!("failure" in hit)) {
          const target = this.resourceAt(hit.file, hit.pointer);
          if (target !== undefined) this.resourceRefs.push({ node: value, file, pointer: childPointer(pointer, "$ref"), target });
          queue.push({ value: hit.value, file: hit.file, pointer: hit.pointer });
          this.checkCycle(value as Record<string, unknown>, file, pointer);
        } else if (hit.failure.kind === "refused") {
          this.diagnostics.push(readProblemDiagnostic(hit.failure.problem, at, "$ref", v)!);
        } else if (hit.failure.kind !== "unparsed") {
          this.diagnostics.push(report("unresolved-ref", at, refProblem(v, file, hit.failure)));
        }
      } else if (SCHEMA_MAPS.has(k) && isObject(v)) {
        // Its keys are names: a property named "default" or "x-rate" is a schema like any other.
        for (const [name, s] of Object.entries(v)) this.walkRefs(s, file, childPointer(pointer, k, name), queue);
      } else if (!isDataKeyword(k)) {
        this.walkRefs(v, file, childPointer(pointer, k), queue);
      }
    }
  }

  /**
   * Follows a chain of schemas that are only a $ref, from `start`: when it comes back to a schema
   * on the chain, that $ref validates nothing (ajv accepts anything, or loops), so it is an error,
   * reported once, at the first $ref of the loop.
   */
  private checkCycle(start: Record<string, unknown>, file: string, pointer: string): void {
    const chain: { node: Record<string, unknown>; file: string; pointer: string }[] = [];
    let node: unknown = start;
    let at = { file, pointer };
    while (isBareRef(node) && !this.followed.has(node)) {
      this.followed.add(node);
      chain.push({ node, ...at });
      const hit = this.resolver.resolve(at.file, node.$ref);
      if (!hit) return;
      node = hit.value;
      at = { file: hit.file, pointer: hit.pointer };
    }
    const loop = chain.findIndex((c) => c.node === node);
    if (loop === -1) return;
    const members = chain.slice(loop);
    const first = members[0]!;
    const where = (m: { file: string; pointer: string }) => `${m.file === first.file ? "" : baseName(m.file)}#${m.pointer}`;
    const path = [...members, first].map(where).join(" → ");
    this.diagnostics.push(report("circular-ref", { file: first.file, pointer: childPointer(first.pointer, "$ref") }, { ref: String(first.node.$ref), chain: path }));
  }
}

/** Keywords that may stand beside a link's `$ref` (or its anyOf): annotations, and any `x-` keyword (other tools' or ours). */
function isAnnotation(key: string): boolean {
  return ANNOTATIONS.has(key) || key.startsWith("x-");
}

/** `{ "type": "null" }` (with annotations): the branch that makes a link nullable. */
function isNullSchema(v: unknown): boolean {
  return isObject(v) && v.type === "null" && Object.keys(v).every((k) => k === "type" || isAnnotation(k));
}

/** A string schema (the expandable form's id branch): `{ "type": "string" }` with string constraints or annotations. */
function isIdSchema(v: unknown): boolean {
  const stringKeywords = new Set(["type", "minLength", "maxLength", "pattern", "format"]);
  return isObject(v) && v.type === "string" && Object.keys(v).every((k) => stringKeywords.has(k) || isAnnotation(k));
}

/** True for a schema that is a $ref and nothing that validates besides. */
function isBareRef(v: unknown): v is Record<string, unknown> & { $ref: string } {
  return isObject(v) && typeof v.$ref === "string" && Object.keys(v).every((k) => NON_VALIDATING.has(k) || k.startsWith("x-"));
}

/** A count in words: 100 000. */
function count(n: number): string {
  return n.toLocaleString("en-US").replace(/,/g, " ");
}

/**
 * The kind of a schema: its first non-null type, the type of its enum, or "any"; a shared reference
 * without a type of its own is the kind of what `deref` says it stands for.
 */
export function kindOf(schema: JsonSchema, deref?: (s: JsonSchema) => JsonSchema | undefined): FieldKind {
  if (!isObject(schema)) return "any";
  if (deref && typeof schema.$ref === "string" && schema.type === undefined) {
    const target = deref(schema);
    return target === undefined || target === schema ? "any" : kindOf(target);
  }
  const t = schema.type;
  const types = Array.isArray(t) ? t : typeof t === "string" ? [t] : [];
  const first = types.find((x) => x !== "null") ?? types[0];
  if (typeof first === "string" && ["string", "number", "integer", "boolean", "object", "array", "null"].includes(first)) {
    return first as FieldKind;
  }
  const values = Array.isArray(schema.enum) ? schema.enum : "const" in schema ? [schema.const] : [];
  const kinds = new Set(values.filter((v) => v !== null).map((v) => (typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v)));
  if (kinds.size === 1) {
    const only = [...kinds][0];
    if (only === "string" || only === "number" || only === "integer" || only === "boolean") return only;
  }
  if (isObject(schema.properties)) return "object";
  if (schema.items !== undefined) return "array";
  // allOf: the kind its parts agree on (a part that says nothing says "any"); anyOf/oneOf: the kind every
  // branch but null has ([string, null] is a nullable string).
  if (Array.isArray(schema.allOf)) {
    const kinds = new Set(schema.allOf.map((p) => kindOf(p as JsonSchema, deref)).filter((k) => k !== "any"));
    if (kinds.size === 1) return [...kinds][0]!;
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const kinds = new Set(branches.map((b) => kindOf(b as JsonSchema, deref)).filter((k) => k !== "null"));
    if (kinds.size === 1 && !kinds.has("any")) return [...kinds][0]!;
  }
  return "any";
}

/** True for kinds a query parameter or a unique key can hold. */
export function isScalarKind(kind: FieldKind): boolean {
  return kind === "string" || kind === "number" || kind === "integer" || kind === "boolean";
}

/**
 * Sets an own property, so a "__proto__" key stays data and never reaches the prototype. Every other key is
 * assigned: on an object of our own (no setters but Object.prototype's __proto__) that makes the same own data
 * property, and V8 assigns inline where defineProperty goes through its runtime (~10× slower: the schema
 * walks of a 500-resource check spent ~0.1 s in it).
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * A $ref's target without what names it as a document (x- keywords, $id, $schema, $anchor): copied into
 * each place that refers to it, an $id or $anchor would name several schemas of one body, which ajv
 * refuses to compile (the service would not start).
 */
function stripResourceKeywords(value: unknown): unknown {
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!k.startsWith("x-") && k !== "$id" && k !== "$schema" && k !== "$anchor" && k !== "$dynamicAnchor") setOwn(out, k, v);
  return out;
}

/** The name a shared schema asks for: its pointer's last token that is not a keyword, else its file's name; a resource's schema is `<Collection>Schema`. */
function wantedName(file: string, pointer: string, collection: string | undefined): string {
  if (collection !== undefined) return `${identifierOf(pascalCase(collection))}Schema`;
  const tokens = pointer.split("/").slice(1).map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  const token = [...tokens].reverse().find((t) => !STRUCTURAL.has(t) && !/^\d+$/.test(t));
  const fromFile = baseName(file).replace(/(\.schema)?\.json$/i, "");
  return identifierOf(pascalCase(token ?? fromFile)) || "Schema";
}

/** A PascalCase name of ASCII letters and digits that starts with a letter, as json-schema-to-typescript keeps it (safeTypeName). */
function identifierOf(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9]/g, "");
  if (clean === "") return "";
  return safeTypeName(/^[A-Za-z]/.test(clean) ? clean.charAt(0).toUpperCase() + clean.slice(1) : `Schema${clean}`);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function baseName(file: string): string {
  return file.split(/[\\/]/).pop() ?? file;
}

/** The words of an unresolved-ref diagnostic: what is missing, and where to look. */
function refProblem(ref: string, file: string, failure: RefFailure): { ref: string; problem: string; fix: string } {
  switch (failure.kind) {
    case "no-target": {
      const where = failure.file === file ? "this file" : baseName(failure.file);
      const what = failure.fragment.startsWith("/") ? `nothing at "${failure.fragment}"` : `no "$anchor": "${failure.fragment}"`;
      return { ref, problem: `${where} has ${what}`, fix: `correct the part after "#" to name a location in ${where}` };
    }
    case "no-id":
      return { ref, problem: 'no definition file has this "$id", and refs are resolved offline', fix: `give the target file this "$id", or refer to it by its path relative to ${baseName(file)}` };
    case "bad-uri":
      return { ref, problem: "it is not a valid URI reference", fix: 'write a path and an optional "#" pointer, e.g. "common.json#/$defs/year", with "%" written as "%25"' };
    default:
      return { ref, problem: "the file does not exist", fix: `correct the path, relative to ${baseName(file)}, or create the file` };
  }
}
