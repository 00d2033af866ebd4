import { childPointer, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import { isObject } from "../../model/build-schema.js";
import { FORBIDDEN_NAMES, unsafeReason } from "../../model/names.js";
import { defineRule } from "../rule.js";

/** Names that become identifiers or object keys are safe: no prototype keys, valid after camel-casing. */
export const unsafeName = defineRule({
  codes: ["unsafe-name"],
  description: "names of properties, collections, actions and parameters are safe identifiers",
  check: (model) => {
    const out: Diagnostic[] = [];
    for (const r of model.resources) {
      if (FORBIDDEN_NAMES.has(r.collection)) {
        out.push(report("unsafe-name", { file: r.origin.file, pointer: "/x-collection" }, { what: "collection", name: r.collection, reason: "would reach the object prototype" }));
      }
      nestedNames(r.schema, r.origin.file, "", out);
    }
    for (const a of model.actions) {
      const reason = unsafeReason(a.name);
      if (reason) out.push(report("unsafe-name", { ...a.origin, kind: "key" }, { what: "action", name: a.name, reason }));
      for (const p of a.params) {
        const why = unsafeReason(p.name);
        if (why) out.push(report("unsafe-name", { ...p.origin, kind: "key" }, { what: "parameter", name: p.name, reason: why }));
      }
    }
    return out;
  },
});

/** Walks every `properties` map of a schema (any depth) and reports unsafe property names. */
function nestedNames(schema: unknown, file: string, pointer: string, out: Diagnostic[]): void {
  if (Array.isArray(schema)) {
    schema.forEach((s, i) => nestedNames(s, file, childPointer(pointer, i), out));
    return;
  }
  if (!isObject(schema)) return;
  for (const [k, v] of Object.entries(schema)) {
    if (k === "const" || k === "enum" || k === "examples" || k === "default") continue;
    const here = childPointer(pointer, k);
    if (k === "properties" && isObject(v)) {
      for (const name of Object.keys(v)) {
        const reason = unsafeReason(name);
        if (reason) out.push(report("unsafe-name", { file, pointer: childPointer(here, name), kind: "key" }, { what: "property", name, reason }));
      }
    }
    nestedNames(v, file, here, out);
  }
}
