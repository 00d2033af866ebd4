import { report } from "../../diagnostics/report.js";
import { defineRule } from "../rule.js";

/** Each error code means one condition: service codes are unique and do not take a built-in's code. */
export const duplicateErrorCode = defineRule({
  codes: ["duplicate-error-code"],
  description: "error codes are unique, and distinct from the built-in codes",
  check: (model) => {
    const seen = new Map<number, string>();
    for (const e of model.errors) if (e.builtin) seen.set(e.code, `the built-in error "${e.key}"`);
    const out = [];
    const own = model.errors.filter((e) => !e.builtin).sort((a, b) => (a.origin!.pointer < b.origin!.pointer ? -1 : 1));
    for (const e of own) {
      const other = seen.get(e.code);
      if (other) out.push(report("duplicate-error-code", { file: e.origin!.file, pointer: `${e.origin!.pointer}/code` }, { code: e.code, other }));
      else seen.set(e.code, `"${e.title}" (${e.origin!.pointer})`);
    }
    return out;
  },
});
