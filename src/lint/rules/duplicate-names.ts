import { report } from "../../diagnostics/report.js";
import { defineRule } from "../rule.js";

/** Collection names are unique, and no action shares a path with a collection. */
export const duplicateNames = defineRule({
  codes: ["duplicate-collection", "duplicate-route"],
  description: "every collection and action has a path of its own",
  check: (model) => {
    const first = new Map<string, string>();
    const out = [];
    const byFile = [...model.resources].sort((a, b) => (a.origin.file < b.origin.file ? -1 : 1));
    for (const r of byFile) {
      const other = first.get(r.collection);
      if (other) out.push(report("duplicate-collection", { file: r.origin.file, pointer: "/x-collection" }, { name: r.collection, other: base(other) }));
      else first.set(r.collection, r.origin.file);
    }
    for (const a of model.actions) {
      if (first.has(a.name)) out.push(report("duplicate-route", { ...a.origin, kind: "key" }, { name: a.name, other: `the collection in ${base(first.get(a.name)!)}` }));
    }
    return out;
  },
});

function base(file: string): string {
  return file.split(/[\\/]/).pop() ?? file;
}
