/** Classifies property schemas and inlines non-resource $refs, reporting refs that do not resolve. */
import { childPointer, type Diagnostic } from "../diagnostics/diagnostic.js";
import { report } from "../diagnostics/report.js";
import type { RefFailure, RefResolver } from "../load/resolve-refs.js";
import type { FieldKind, JsonSchema } from "./types.js";

/** Keywords that may stand beside a $ref without making it more than a link. */
const ANNOTATIONS = new Set(["$ref", "title", "description", "$comment", "readOnly", "writeOnly", "deprecated", "examples", "default", "x-inverse"]);

/** Finds the resource (by collection) whose root file a resolved $ref lands on. */
export type ResourceLookup = (file: string, pointer: string) => string | undefined;

export class SchemaReader {
  readonly diagnostics: Diagnostic[] = [];

  constructor(
    private readonly resolver: RefResolver,
    private readonly resourceAt: ResourceLookup,
  ) {}

  /** The collection a schema links to when it is `{ "$ref": <resource> }` (annotations allowed). */
  linkTarget(schema: unknown, file: string): string | undefined {
    if (!isObject(schema) || typeof schema.$ref !== "string") return undefined;
    if (!Object.keys(schema).every((k) => ANNOTATIONS.has(k))) return undefined;
    const hit = this.resolver.resolve(file, schema.$ref);
    return hit ? this.resourceAt(hit.file, hit.pointer) : undefined;
  }

  /** The schema with every $ref to a non-resource replaced by its target (cycles become `{}`). */
  inline(schema: unknown, file: string, seen: readonly string[] = []): JsonSchema {
    if (Array.isArray(schema)) return schema.map((s) => this.inline(s, file, seen)) as unknown as JsonSchema;
    if (!isObject(schema)) return schema as JsonSchema;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(schema)) {
      if (k === "$ref" && typeof v === "string") continue;
      setOwn(out, k, this.inline(v, file, seen));
    }
    if (typeof schema.$ref !== "string") return out;
    const hit = this.resolver.resolve(file, schema.$ref);
    if (!hit) return out;
    const key = `${hit.file}#${hit.pointer}`;
    if (seen.includes(key)) return out;
    const target = this.inline(stripResourceKeywords(hit.value), hit.file, [...seen, key]);
    return isObject(target) ? { ...target, ...out } : target;
  }

  /** Reports every $ref in `value` (at `pointer` of `file`) that does not resolve. */
  checkRefs(value: unknown, file: string, pointer: string): void {
    if (Array.isArray(value)) {
      value.forEach((v, i) => this.checkRefs(v, file, childPointer(pointer, i)));
      return;
    }
    if (!isObject(value)) return;
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") {
        const failure = this.resolver.explain(file, v);
        if (failure && failure.kind !== "unparsed") {
          this.diagnostics.push(report("unresolved-ref", { file, pointer: childPointer(pointer, "$ref") }, refProblem(v, file, failure)));
        }
      } else if (k !== "const" && k !== "enum" && k !== "examples" && k !== "default") {
        this.checkRefs(v, file, childPointer(pointer, k));
      }
    }
  }
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

function stripResourceKeywords(value: unknown): unknown {
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!k.startsWith("x-") && k !== "$id" && k !== "$schema") setOwn(out, k, v);
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
