import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { childPointer } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import { isObject } from "../../model/build-schema.js";
import { SharedSchemas } from "../../model/shared.js";
import type { Model, SharedSchema } from "../../model/types.js";
import { ringsOf } from "../rings.js";
import { defineRule } from "../rule.js";

/** Keywords whose schemas apply to the value itself (not to a property, an item or a key of it). */
const IN_PLACE_ARRAYS = new Set(["allOf", "anyOf", "oneOf"]);
const IN_PLACE_VALUES = new Set(["not", "if", "then", "else"]);
const IN_PLACE_MAPS = new Set(["dependentSchemas", "dependencies"]);

/** A reference from one shared schema to another (or itself) that applies to the same value. */
interface Step {
  readonly from: SharedSchema;
  readonly to: string;
  /** The reference's pointer in `from`'s file. */
  readonly pointer: string;
  /** The keywords between `from`'s root and the reference, e.g. "anyOf/0". */
  readonly via: string;
}

/**
 * A shared schema that refers back to itself without going into a property, an item or a key of the
 * value (`Expr = anyOf [Expr, string]`, or `A = allOf [B]`, `B = oneOf [A, integer]`) asks, to validate a
 * value, to validate that same value against itself first: the validator recurses until the stack runs out,
 * on the first request that carries such a value, and every tool that reads the schema loops the same way.
 * A reference under `properties` or `items` (a tree's `children`) goes one level into the value each time,
 * so it ends: that recursion is fine.
 */
export const schemaLoop = defineRule({
  codes: ["schema-loop"],
  description: "a shared schema never refers back to itself without going into a property or an item of the value",
  check: (model) => {
    const steps = new Map<string, Step[]>();
    for (const shared of model.schemas) steps.set(shared.name, inPlaceSteps(shared));
    const out: Diagnostic[] = [];
    const deeper = `put it under "properties" or "items" (a tree's "children": { "type": "array", "items": { "$ref": … } }), so that each step goes one level into the value`;
    for (const ring of ringsOf<Step>({ nodes: model.schemas.map((s) => s.name), arrows: (n) => steps.get(n) ?? [], from: (s) => s.from.name, to: (s) => s.to })) {
      const first = ring[0]!;
      const at = { file: first.from.origin.file, pointer: first.pointer, kind: "value" as const };
      if (ring.length === 1) {
        const branch = /^(anyOf|oneOf)\/\d+$/.test(first.via);
        out.push(
          report("schema-loop", at, {
            problem: `${labelOf(first.from)} refers to itself through ${first.via}, on the same value: validating any value against it would never end`,
            fix: branch ? `take this branch out (a branch that is the schema itself admits nothing the others do not), or ${deeper}` : `take this reference out, or ${deeper}`,
          }),
        );
        continue;
      }
      const chain = ring.map((s) => `${labelOf(s.from)} → ${s.via} → ${labelOf(named(model.schemas, s.to))}`).join(", ");
      out.push(
        report("schema-loop", at, {
          problem: `shared schemas refer to one another on the same value, round in a ring (${chain}): validating any value against ${labelOf(first.from)} would never end`,
          fix: `take one reference of the ring out, or ${deeper}`,
        }),
      );
    }
    return out;
  },
});

/** How a diagnostic names a shared schema: as it is written, its key under $defs (or its file). */
export function labelOf(shared: SharedSchema | undefined): string {
  if (shared === undefined) return "?";
  const last = shared.origin.pointer.split("/").pop() ?? "";
  const key = last.replace(/~1/g, "/").replace(/~0/g, "~");
  return key === "" ? shared.origin.file.split(/[\\/]/).pop()! : `"${key}"`;
}

function named(schemas: readonly SharedSchema[], name: string): SharedSchema | undefined {
  return schemas.find((s) => s.name === name);
}

/** The references of `shared` that apply to the value `shared` applies to, with where each is. */
function inPlaceSteps(shared: SharedSchema): Step[] {
  // Last written first, the order the rings have always been found in.
  return inPlaceRefs(shared.schema, shared.origin.pointer)
    .reverse()
    .map((r) => ({ from: shared, ...r }));
}

/** A reference to a shared schema that applies to the value its schema applies to. */
export interface InPlaceRef {
  readonly to: string;
  /** The reference's pointer in its schema's file. */
  readonly pointer: string;
  /** The keywords between the schema's root and the reference, e.g. "anyOf/0". */
  readonly via: string;
}

/** The references to shared schemas in `schema` (at `root` in its file) that apply to the value itself, in the order written. */
export function inPlaceRefs(schema: unknown, root: string): InPlaceRef[] {
  const out: InPlaceRef[] = [];
  const stack: [unknown, string, string][] = [[schema, root, ""]];
  while (stack.length > 0) {
    const [s, pointer, via] = stack.pop()!;
    if (!isObject(s)) continue;
    const to = SharedSchemas.nameOf(s);
    if (to !== undefined) out.push({ to, pointer: childPointer(pointer, "$ref"), via: via === "" ? "$ref" : via });
    for (const [k, v] of Object.entries(s)) {
      const here = via === "" ? k : `${via}/${k}`;
      if (IN_PLACE_ARRAYS.has(k) && Array.isArray(v)) v.forEach((sub, i) => stack.push([sub, childPointer(childPointer(pointer, k), i), `${here}/${i}`]));
      else if (IN_PLACE_VALUES.has(k)) stack.push([v, childPointer(pointer, k), here]);
      else if (IN_PLACE_MAPS.has(k) && isObject(v)) for (const [name, sub] of Object.entries(v)) stack.push([sub, childPointer(childPointer(pointer, k), name), `${here}/${name}`]);
    }
  }
  // The stack visits them backwards.
  return out.reverse();
}
