import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { assertInternal } from "../../diagnostics/internal-error.js";
import { report } from "../../diagnostics/report.js";
import { withArticle } from "../../model/names.js";
import { isNullable } from "../../model/nullable.js";
import type { Field, Model, Resource } from "../../model/types.js";
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
    for (const ring of rings(model, edges)) {
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
 * One ring per group of collections that require one another (a strongly connected component of the
 * required links, Tarjan's algorithm), as the links that go round it; and each link of a collection to
 * itself as a ring of one. Sorted by collection, so the findings come in a stable order.
 */
function rings(model: Model, edges: ReadonlyMap<string, readonly Edge[]>): Edge[][] {
  const found: Edge[][] = [];
  for (const list of edges.values()) for (const e of list) if (e.to === e.from.collection) found.push([e]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  let next = 0;
  const components: string[][] = [];
  // Iterative, so a long chain of collections cannot overflow the call stack.
  for (const start of [...edges.keys()].sort()) {
    if (index.has(start)) continue;
    const work: { node: string; child: number }[] = [{ node: start, child: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const out = edges.get(top.node) ?? [];
      if (top.child < out.length) {
        const to = out[top.child++]!.to;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, child: 0 });
        } else if (onStack.has(to)) {
          low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) === index.get(top.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== top.node);
        if (component.length > 1) components.push(component.sort());
      }
    }
  }
  for (const component of components) found.push(ringThrough(component, edges));
  return found.sort((a, b) => (a[0]!.from.collection < b[0]!.from.collection ? -1 : a[0]!.from.collection > b[0]!.from.collection ? 1 : 0));
}

/** The shortest ring of links from the component's first collection back to it, inside the component. */
function ringThrough(component: readonly string[], edges: ReadonlyMap<string, readonly Edge[]>): Edge[] {
  const members = new Set(component);
  const start = component[0]!;
  const via = new Map<string, Edge>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const e of edges.get(queue[i]!) ?? []) {
      if (!members.has(e.to) || e.to === e.from.collection) continue;
      if (e.to === start) {
        const ring = [e];
        for (let at = e.from.collection; at !== start; at = via.get(at)!.from.collection) ring.unshift(via.get(at)!);
        return ring;
      }
      if (via.has(e.to)) continue;
      via.set(e.to, e);
      queue.push(e.to);
    }
  }
  // A strongly connected component of two or more collections always has such a ring.
  assertInternal(false, `no ring of required links through ${component.join(", ")}`);
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
