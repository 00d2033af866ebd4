import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import { withArticle } from "../../model/names.js";
import { isNullable } from "../../model/nullable.js";
import type { Field, Model, Resource } from "../../model/types.js";
import { ringsOf } from "../rings.js";
import { defineRule } from "../rule.js";

/** A required, non-nullable link to one instance: the instance cannot be created before its target. */
interface Edge {
  readonly from: Resource;
  readonly field: Field;
  readonly to: string;
}

/**
 * An instance is created with its required links, and a link names an instance that exists. So a
 * required link from a collection to itself (a team's `parent`), or a ring of them through several
 * collections (a team's `lead` a person, a person's `team` a team), asks for an instance before the
 * first one: none can ever be created. A link that may be null (or is optional) breaks the ring.
 */
export const requiredLinkCycle = defineRule({
  codes: ["required-link-cycle"],
  description: "required links never lead back to the collection they start from, so a first instance can be created",
  check: (model) => {
    const out: Diagnostic[] = [];
    const edges = requiredEdges(model);
    for (const ring of rings(edges)) {
      const first = ring[0]!;
      const at = { file: first.field.origin.file, pointer: first.field.origin.pointer, kind: "key" as const };
      if (ring.length === 1) {
        const { from, field } = first;
        out.push(
          report("required-link-cycle", at, {
            problem: `"${field.name}" is a required link to ${from.collection}, its own collection: the first ${from.name} can never be created, as it would need ${withArticle(from.name)} to link to`,
            fix: `make "${field.name}" optional (remove it from "required") or nullable: "${field.name}": ${nullableForm(field)}`,
          }),
        );
        continue;
      }
      const chain = ring.map((e) => `${e.from.collection}.${e.field.name} → ${e.to}`).join(", ");
      out.push(
        report("required-link-cycle", at, {
          problem: `required links go round in a ring (${chain}): no first instance of ${listOf(ring.map((e) => e.from.collection))} can ever be created, as each needs another to exist`,
          fix: `make one of these links optional (remove it from "required") or nullable, e.g. "${first.field.name}": ${nullableForm(first.field)}`,
        }),
      );
    }
    return out;
  },
});

/** The required, non-nullable instance links between the model's collections, by the collection they start from. */
function requiredEdges(model: Model): Map<string, Edge[]> {
  const collections = new Set(model.resources.map((r) => r.collection));
  const edges = new Map<string, Edge[]>();
  for (const from of model.resources) {
    const own = from.fields
      .filter((f) => f.link?.kind === "instance" && f.required && collections.has(f.link.target) && !isNullable(f.schema))
      .map((field) => ({ from, field, to: field.link!.target }));
    edges.set(from.collection, own);
  }
  return edges;
}

/**
 * The rings of required links (see ringsOf), each collection's link to itself first; sorted by the
 * collection each ring starts from, so the findings come in a stable order.
 */
function rings(edges: ReadonlyMap<string, readonly Edge[]>): Edge[][] {
  const found = ringsOf<Edge>({ nodes: [...edges.keys()].sort(), arrows: (c) => edges.get(c) ?? [], from: (e) => e.from.collection, to: (e) => e.to });
  return found.sort((a, b) => (a[0]!.from.collection < b[0]!.from.collection ? -1 : a[0]!.from.collection > b[0]!.from.collection ? 1 : 0));
}

/** A nullable form of the link's schema as written: its $ref beside { "type": "null" } in an anyOf. */
function nullableForm(field: Field): string {
  const schema = field.schema;
  const ref = typeof schema === "object" && typeof schema.$ref === "string" ? JSON.stringify(schema.$ref) : "…";
  return `{ "anyOf": [{ "$ref": ${ref} }, { "type": "null" }] }`;
}

/** "a", "a or b", "a, b or c". */
function listOf(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}
