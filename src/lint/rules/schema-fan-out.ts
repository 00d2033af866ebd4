import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import type { Model, SharedSchema } from "../../model/types.js";
import { defineRule } from "../rule.js";
import { inPlaceRefs, labelOf, type InPlaceRef } from "./schema-loop.js";

/**
 * How many shared schemas validating one value may apply to that same value. In the 29 published APIs of
 * test/real-apis the most is 12 (pandascore.co; zuora.com 8, the rest 3 or fewer; Stripe 1); past this a
 * request body's validation is a denial of service.
 */
export const FAN_OUT_BUDGET = 10_000;

/**
 * A validator applies every branch of `anyOf`/`oneOf` (oneOf must know that exactly one passes), every part of
 * `allOf`, `not`, `if`/`then`/`else` and `dependentSchemas` to the value itself. When the shared schemas those
 * refer to refer again to the same ones (`a = oneOf [b, c]`, `b = anyOf [c, …]`, `c = oneOf [d, e]` …), the
 * same value is validated against the deepest ones once per path: twice as often at each level, 2^40 times at
 * forty. The validator of the service then spends seconds to hours on a one-line request body, and so does
 * every tool that checks values against the schema. This counts, per shared schema, how many schemas one value
 * meets (linear in the schemas: each is counted once), and refuses a schema past FAN_OUT_BUDGET: at the first
 * shared schema past it (those it refers to are within it), naming the chain that doubles.
 */
export const schemaFanOut = defineRule({
  codes: ["schema-fan-out"],
  description: "validating a value never applies the same shared schemas to it exponentially many times",
  check: (model) => {
    const { byName, refs, count } = fanOut(model);
    const out: Diagnostic[] = [];
    for (const shared of model.schemas) {
      const n = count(shared.name);
      if (n <= FAN_OUT_BUDGET) continue;
      const own = refs.get(shared.name) ?? [];
      // The first schema past the budget: those it refers to are within it.
      if (own.some((r) => byName.has(r.to) && count(r.to) > FAN_OUT_BUDGET)) continue;
      // The heaviest path down from it, for the message: where the doubling comes from.
      const chain: string[] = [labelOf(shared)];
      let at: SharedSchema | undefined = shared;
      for (let steps = 0; at !== undefined && steps < 6; steps++) {
        const next: InPlaceRef | undefined = [...(refs.get(at.name) ?? [])].filter((r) => byName.has(r.to)).sort((a, b) => count(b.to) - count(a.to))[0];
        if (next === undefined) break;
        at = byName.get(next.to);
        chain.push(`${next.via} → ${labelOf(at)}`);
      }
      const first = own.find((r) => byName.has(r.to)) ?? own[0];
      out.push(
        report("schema-fan-out", { file: shared.origin.file, pointer: first?.pointer ?? shared.origin.pointer, kind: "value" }, {
          problem: `validating one value against ${labelOf(shared)} applies ${n > 1e15 ? "more than 10^15" : n.toLocaleString("en-US")} schemas to it (${chain.join(", ")}, …): its anyOf/oneOf/allOf branches refer to the same shared schemas again at every level, so the work doubles with each`,
          fix: `refer to each shared schema once per level (a oneOf whose branches share a part can name that part once, in an allOf beside it), or put the repeated reference under "properties" or "items", so that each step goes into the value; the limit is ${FAN_OUT_BUDGET.toLocaleString("en-US")} schemas per value`,
        }),
      );
    }
    // A property's (or an action's) own schema may name heavy shared schemas side by side: counted the same way,
    // reported there when the shared schemas it names are each within the budget.
    const own = (what: string, schema: unknown, origin: { file: string; pointer: string }) => {
      const named = inPlaceRefs(schema, origin.pointer).filter((r) => byName.has(r.to));
      if (named.some((r) => count(r.to) > FAN_OUT_BUDGET)) return; // reported at the shared schema
      const n = named.reduce((sum, r) => Math.min(sum + count(r.to), Number.MAX_SAFE_INTEGER), 1);
      if (n <= FAN_OUT_BUDGET) return;
      out.push(
        report("schema-fan-out", { file: origin.file, pointer: named[0]!.pointer, kind: "value" }, {
          problem: `validating one value of ${what} applies ${n.toLocaleString("en-US")} schemas to it: it names ${named.length} shared schemas on the same value (${named.slice(0, 3).map((r) => `${r.via} → ${labelOf(byName.get(r.to))}`).join(", ")}, …), each of them heavy`,
          fix: `name fewer of them side by side (what they share once, in an allOf beside them), or put some under "properties" or "items"; the limit is ${FAN_OUT_BUDGET.toLocaleString("en-US")} schemas per value`,
        }),
      );
    };
    for (const r of model.resources) for (const f of r.fields) if (f.link === undefined) own(`"${f.name}" of ${r.collection}`, f.schema, f.origin);
    for (const a of model.actions) {
      for (const p of a.params) own(`the parameter "${p.name}" of ${a.name}`, p.schema, p.origin);
      own(`the response of ${a.name}`, a.response, a.origin);
    }
    return out;
  },
});

/**
 * Per shared schema, how many shared schemas one value meets when validated against it (itself included; a ring,
 * which schema-loop refuses, counts once): `count(name)`, each computed once.
 * @example fanOut(model).count("Address") === 1 // refers to no shared schema on the same value
 */
export function fanOut(model: Model): { byName: ReadonlyMap<string, SharedSchema>; refs: ReadonlyMap<string, readonly InPlaceRef[]>; count: (name: string) => number } {
  const byName = new Map(model.schemas.map((s) => [s.name, s]));
  const refs = new Map<string, InPlaceRef[]>(model.schemas.map((s) => [s.name, inPlaceRefs(s.schema, s.origin.pointer)]));
  const meets = new Map<string, number>();
  const visiting = new Set<string>();
  const count = (name: string): number => {
    const known = meets.get(name);
    if (known !== undefined) return known;
    if (visiting.has(name) || !byName.has(name)) return 1;
    visiting.add(name);
    let n = 1;
    for (const r of refs.get(name) ?? []) n = Math.min(n + count(r.to), Number.MAX_SAFE_INTEGER);
    visiting.delete(name);
    meets.set(name, n);
    return n;
  };
  return { byName, refs, count };
}
