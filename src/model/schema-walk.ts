/**
 * Visits every schema inside a JSON Schema (draft 2020-12, and the array form of draft-07 `items`): the
 * values of the keywords that hold schemas, never data (`const`, `enum`, `default`, `examples`) nor the
 * values of unknown keywords. A property named "pattern" is a name, not a regular expression.
 */
import { childPointer } from "../diagnostics/diagnostic.js";

/** Keywords whose value is a map from names to schemas: its keys are names, never keywords. */
export const SCHEMA_MAPS: ReadonlySet<string> = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/**
 * True for a keyword whose value is data, never a schema: the values of `const`, `enum`, `default` and
 * `examples`, and of every `x-` keyword (another tool's annotation, or one of resourcery's, none of which
 * holds a schema). A `$ref` or `$anchor` inside such a value is text: walkers leave it alone.
 */
export function isDataKeyword(key: string): boolean {
  return key === "const" || key === "enum" || key === "examples" || key === "default" || key.startsWith("x-");
}
/** Keywords whose value is one schema (or, for items in old drafts, an array of them). */
const SCHEMA_VALUES = new Set([
  "items", "additionalItems", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
  "unevaluatedItems", "unevaluatedProperties", "contentSchema",
]);
/** Keywords whose value is an array of schemas. */
const SCHEMA_ARRAYS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);

/** A schema object and its JSON pointer in its document. */
export type SchemaVisitor = (schema: Readonly<Record<string, unknown>>, pointer: string) => void;

/** Calls `visit` for `schema` (at `pointer`) and every schema object within it, parents first. */
export function walkSchemas(schema: unknown, pointer: string, visit: SchemaVisitor): void {
  // An explicit stack: a deep schema costs memory, not the call stack.
  const stack: [unknown, string][] = [[schema, pointer]];
  while (stack.length > 0) {
    const [s, at] = stack.pop()!;
    if (s === null || typeof s !== "object" || Array.isArray(s)) continue;
    const obj = s as Record<string, unknown>;
    visit(obj, at);
    const children: [unknown, string][] = [];
    for (const [k, v] of Object.entries(obj)) {
      // The pointer of a keyword is made only for those that hold schemas (most keywords do not).
      if (SCHEMA_MAPS.has(k) && isRecord(v)) {
        const here = childPointer(at, k);
        for (const [name, sub] of Object.entries(v)) children.push([sub, childPointer(here, name)]);
      } else if (SCHEMA_ARRAYS.has(k) && Array.isArray(v)) {
        const here = childPointer(at, k);
        v.forEach((sub, i) => children.push([sub, childPointer(here, i)]));
      } else if (SCHEMA_VALUES.has(k)) {
        const here = childPointer(at, k);
        if (Array.isArray(v)) v.forEach((sub, i) => children.push([sub, childPointer(here, i)]));
        else children.push([v, here]);
      } else if (k === "dependencies" && isRecord(v)) {
        // draft-07: a dependency is a schema or a list of property names.
        const here = childPointer(at, k);
        for (const [name, sub] of Object.entries(v)) children.push([sub, childPointer(here, name)]);
      }
    }
    // Reversed onto the stack, so schemas are visited in the order they are written.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
