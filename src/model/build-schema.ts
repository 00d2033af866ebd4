/**
 * Classifies property schemas and inlines non-resource $refs within a budget, reporting refs that
 * do not resolve, lead outside the project, or only lead back to themselves.
 */
import { childPointer, type Diagnostic } from "../diagnostics/diagnostic.js";
import { report } from "../diagnostics/report.js";
import { DEFAULT_LIMITS, type Limits } from "../load/limits.js";
import { readProblemDiagnostic } from "../load/read-file.js";
import type { RefFailure, RefResolver } from "../load/resolve-refs.js";
import type { FieldKind, JsonSchema } from "./types.js";

/** Keywords that may stand beside a $ref without making it more than a link. */
const ANNOTATIONS = new Set(["$ref", "title", "description", "$comment", "readOnly", "writeOnly", "deprecated", "examples", "default", "x-inverse", "x-on-delete"]);

/** Finds the resource (by collection) whose root file a resolved $ref lands on. */
export type ResourceLookup = (file: string, pointer: string) => string | undefined;

/** Keywords that say nothing about a value: a schema of these and a $ref is only the $ref. */
const NON_VALIDATING = new Set([...ANNOTATIONS, "$defs", "definitions", "$id", "$anchor", "$schema"]);

/** How much the $ref expansion of one resource or action may still produce, and where to report it. */
export interface Budget {
  /** Schema nodes (objects and arrays) left. */
  left: number;
  /** The resource or action, in words: `resource "books"`. */
  readonly owner: string;
  /** Set once its diagnostic is reported: one per resource or action. */
  spent: boolean;
}

/** Thrown inside the expansion when a budget runs out; caught where the expansion started. */
class OverBudget {
  constructor(readonly problem: string) {}
}

export class SchemaReader {
  readonly diagnostics: Diagnostic[] = [];
  /** Schema nodes the expansion of the whole project may still produce. */
  private totalLeft: number;
  /** Objects and arrays checkRefs has walked (a value reached by several $refs is walked once). */
  private readonly walked = new WeakSet<object>();
  /** Schemas that are only a $ref whose chain of $refs checkRefs has followed. */
  private readonly followed = new WeakSet<object>();

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
    if (!Object.keys(schema).every((k) => ANNOTATIONS.has(k))) return undefined;
    const hit = this.resolver.resolve(file, schema.$ref);
    return hit ? this.resourceAt(hit.file, hit.pointer) : undefined;
  }

  /**
   * The schema at `pointer` of `file` with every $ref to a non-resource replaced by its target
   * (cycles become `{}`). The expansion counts against `budget` and the project's total: a schema
   * that references a shared one twice at every level doubles at every level, so past the limit
   * it is a schema-too-large error (and `{}`), never minutes of work or an exhausted heap.
   */
  inline(schema: unknown, file: string, pointer: string, budget: Budget): JsonSchema {
    if (budget.spent) return {};
    try {
      return this.expand(schema, file, [], budget, 0);
    } catch (e) {
      if (!(e instanceof OverBudget)) throw e;
      budget.spent = true;
      this.diagnostics.push(report("schema-too-large", { file, pointer, kind: "key" }, { what: budget.owner, problem: e.problem }));
      return {};
    }
  }

  private expand(schema: unknown, file: string, seen: readonly string[], budget: Budget, depth: number): JsonSchema {
    if (schema === null || typeof schema !== "object") return schema as JsonSchema;
    this.spend(budget, depth);
    if (Array.isArray(schema)) return schema.map((s) => this.expand(s, file, seen, budget, depth + 1)) as unknown as JsonSchema;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(schema)) {
      if (k === "$ref" && typeof v === "string") continue;
      setOwn(out, k, this.expand(v, file, seen, budget, depth + 1));
    }
    const ref = (schema as { $ref?: unknown }).$ref;
    if (typeof ref !== "string") return out;
    const hit = this.resolver.resolve(file, ref);
    if (!hit) return out;
    const key = `${hit.file}#${hit.pointer}`;
    if (seen.includes(key)) return out;
    // A $ref counts as a level: a chain of $refs is as deep as the nesting it stands for.
    const target = this.expand(stripResourceKeywords(hit.value), hit.file, [...seen, key], budget, depth + 1);
    return isObject(target) ? { ...target, ...out } : target;
  }

  /** Counts one node against the budgets, and its depth against twice the nesting limit of a file. */
  private spend(budget: Budget, depth: number): void {
    const { schemaNodes, totalSchemaNodes, nesting } = this.limits;
    if (--budget.left < 0) throw new OverBudget(`grows past ${count(schemaNodes)} schema nodes once its $refs are expanded (the limit for one resource or action)`);
    if (--this.totalLeft < 0) throw new OverBudget(`takes the project past ${count(totalSchemaNodes)} schema nodes once $refs are expanded (the limit for all resources and actions together)`);
    if (depth > 2 * nesting) throw new OverBudget(`nests more than ${2 * nesting} levels deep once its $refs are expanded`);
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
          queue.push({ value: hit.value, file: hit.file, pointer: hit.pointer });
          this.checkCycle(value as Record<string, unknown>, file, pointer);
        } else if (hit.failure.kind === "refused") {
          this.diagnostics.push(readProblemDiagnostic(hit.failure.problem, at, "$ref", v)!);
        } else if (hit.failure.kind !== "unparsed") {
          this.diagnostics.push(report("unresolved-ref", at, refProblem(v, file, hit.failure)));
        }
      } else if (k !== "const" && k !== "enum" && k !== "examples" && k !== "default") {
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

/** True for a schema that is a $ref and nothing that validates besides. */
function isBareRef(v: unknown): v is Record<string, unknown> & { $ref: string } {
  return isObject(v) && typeof v.$ref === "string" && Object.keys(v).every((k) => NON_VALIDATING.has(k) || k.startsWith("x-"));
}

/** A count in words: 100 000. */
function count(n: number): string {
  return n.toLocaleString("en-US").replace(/,/g, " ");
}

/** The kind of a (inlined) schema: its first non-null type, the type of its enum, or "any". */
export function kindOf(schema: JsonSchema): FieldKind {
  if (!isObject(schema)) return "any";
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
  return "any";
}

/** True for kinds a query parameter or a unique key can hold. */
export function isScalarKind(kind: FieldKind): boolean {
  return kind === "string" || kind === "number" || kind === "integer" || kind === "boolean";
}

/** Sets an own property, so a "__proto__" key stays data and never reaches the prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
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
