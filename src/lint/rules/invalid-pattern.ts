import { childPointer, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import { patternProblem, type PatternProblem } from "../../model/patterns.js";
import { walkSchemas } from "../../model/schema-walk.js";
import type { Model, Origin } from "../../model/types.js";
import { defineRule } from "../rule.js";

/**
 * Every `pattern` and `patternProperties` key is a regular expression the generated service can use:
 * valid ECMAScript (with the "u" flag, as ajv reads it) and accepted by RE2, the linear-time engine the
 * service tests patterns with. Found where written: resource files, shared definitions, action query and
 * response schemas; a pattern only reached through a $ref into a file's non-schema part is reported at
 * the property or action that uses it.
 */
export const invalidPattern = defineRule({
  codes: ["invalid-pattern"],
  description: "patterns are regular expressions that both ECMAScript and RE2 accept",
  check: (model) => {
    const out: Diagnostic[] = [];
    const cache = new Map<string, PatternProblem | undefined>();
    const problemOf = (p: string) => {
      if (!cache.has(p)) cache.set(p, patternProblem(p));
      return cache.get(p);
    };
    const reported = new Set<string>();
    const visit = (file: string, onlyNew: Origin | undefined) => (schema: Readonly<Record<string, unknown>>, pointer: string) => {
      const found: [string, string, "key" | "value"][] = [];
      if (typeof schema.pattern === "string") found.push([schema.pattern, childPointer(pointer, "pattern"), "value"]);
      const pp = schema.patternProperties;
      if (pp !== null && typeof pp === "object" && !Array.isArray(pp)) {
        for (const key of Object.keys(pp)) found.push([key, childPointer(pointer, "patternProperties", key), "key"]);
      }
      for (const [pattern, at, kind] of found) {
        const problem = problemOf(pattern);
        if (!problem) continue;
        if (onlyNew) {
          if (reported.has(pattern)) continue;
          out.push(report("invalid-pattern", { ...onlyNew, kind: "key" }, { pattern, problem: `${problem.problem} (reached through a $ref)`, fix: problem.fix }));
        } else {
          out.push(report("invalid-pattern", { file, pointer: at, kind }, { pattern, ...problem }));
        }
        reported.add(pattern);
      }
    };
    for (const root of model.schemaRoots) walkSchemas(root.schema, root.origin.pointer, visit(root.origin.file, undefined));
    // What the service compiles, $refs inlined: a pattern not met above sits where no schema walk reaches.
    for (const r of model.resources) for (const f of r.fields) walkSchemas(f.schema, "", visit(f.origin.file, f.origin));
    for (const a of model.actions) {
      walkSchemas(a.query, "", visit(a.origin.file, a.origin));
      walkSchemas(a.response, "", visit(a.origin.file, a.origin));
    }
    return out;
  },
});
