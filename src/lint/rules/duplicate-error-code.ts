import { tokensOf } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import type { ErrorDef } from "../../model/types.js";
import { defineRule } from "../rule.js";

/** Each error code means one condition: service codes are unique and do not take a built-in's code. */
export const duplicateErrorCode = defineRule({
  codes: ["duplicate-error-code"],
  description: "error codes are unique, and distinct from the built-in codes",
  check: (model) => {
    const seen = new Map<number, string>();
    for (const e of model.errors) if (e.builtin) seen.set(e.code, `the built-in error "${e.key}"`);
    const out = [];
    // In the order written, so the later of two errors is the one reported ("/errors/10" after "/errors/9").
    const index = (e: ErrorDef) => Number(tokensOf(e.origin!.pointer).at(-1));
    const own = model.errors.filter((e) => !e.builtin).sort((a, b) => index(a) - index(b));
    for (const e of own) {
      const other = seen.get(e.code);
      if (other) out.push(report("duplicate-error-code", { file: e.origin!.file, pointer: `${e.origin!.pointer}/code` }, { code: e.code, other }));
      else seen.set(e.code, `the error "${e.title}" at ${e.origin!.pointer}`);
    }
    return out;
  },
});
